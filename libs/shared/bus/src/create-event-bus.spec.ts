import { BusUnavailableError } from './kafka-bus';
import { createEventBus } from './create-event-bus';
import pino from 'pino';

describe('createEventBus', () => {
  const logger = pino({ level: 'silent' });

  it('gives the memory bus for "memory"', async () => {
    const bus = await createEventBus('memory', { clientId: 'test', logger });
    expect(bus.kind).toBe('memory');
    await bus.close();
  });

  it('refuses a malformed broker list naming it', async () => {
    await expect(createEventBus('kafka://host', { clientId: 'test', logger })).rejects.toThrow(
      'event bus: invalid brokers "kafka://host" (expected "memory" or "host:port,host:port")',
    );
  });

  it('when Kafka does not answer, fails within seconds with one line naming the brokers', async () => {
    const started = Date.now();
    const error = await createEventBus('127.0.0.1:1', { clientId: 'test', logger }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(BusUnavailableError);
    expect((error as Error).message).toBe('event bus: cannot reach Kafka at 127.0.0.1:1 (ECONNREFUSED)');
    expect(Date.now() - started).toBeLessThan(5500);
  }, 10_000);
});
