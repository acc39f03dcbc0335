import { deadLetterTopic, type SubscribeOptions } from './event-bus.port';
import { envelope, eventBusContract, type RawPublishingBus } from './event-bus.contract';
import { createMemoryBus, type MemoryBus } from './memory-bus';

describe('EventBus contract on the memory bus', () => {
  eventBusContract({
    open: async () => createMemoryBus(),
    readRaw: async (bus: RawPublishingBus, topic: string) => (bus as MemoryBus).messages(topic),
    timeoutMs: 2000,
  });
});

/** A memory bus with one subscription (group `g`, topic `t`, and `options`) that records the ids it handled. */
async function recordingBus(options: Omit<SubscribeOptions, 'groupId' | 'topics' | 'handle'> = {}) {
  const bus = createMemoryBus();
  const handled: string[] = [];
  await bus.subscribe({ groupId: 'g', topics: ['t'], ...options, handle: async (e) => void handled.push(e.id) });
  return { bus, handled };
}

describe('memory bus', () => {
  it('takes the Kafka-only options (fetch size, session timeout, time-outs) and delivers as without them', async () => {
    const { bus, handled } = await recordingBus({
      sessionTimeout: 6000,
      maxBytesPerPartition: 4 * 1024 * 1024,
      handlerTimeoutMs: 1000,
      maxHandlerTimeouts: 1,
    });
    const events = [envelope('t', 'k'), envelope('t', 'k')];
    await bus.publish(events);
    await bus.drain();
    expect(handled).toEqual(events.map((e) => e.id));
    await bus.close();
  });

  it('resolves publish before any handler runs', async () => {
    const { bus, handled } = await recordingBus();

    await bus.publish([envelope('t', 'k')]);

    expect(handled).toEqual([]);
    await bus.drain();
    expect(handled).toHaveLength(1);
    await bus.close();
  });

  it('drain waits for retries, dead-lettering and the events handlers publish in turn', async () => {
    const bus = createMemoryBus();
    const seen: string[] = [];
    await bus.subscribe({
      groupId: 'orders',
      topics: ['order.order.v1'],
      handle: async (e) => {
        seen.push(`order:${e.key}`);
        await bus.publish([envelope('catalog.stock.v1', e.key)]);
      },
    });
    await bus.subscribe({
      groupId: 'stock',
      topics: ['catalog.stock.v1'],
      maxAttempts: 3,
      handle: async () => Promise.reject(new Error('down')),
    });
    await bus.subscribe({
      groupId: 'dlq',
      topics: [deadLetterTopic('catalog.stock.v1')],
      handle: async (e) => void seen.push(`dead:${e.key}`),
    });

    await bus.publish([envelope('order.order.v1', 'o-1')]);
    await bus.drain();

    expect(seen).toEqual(['order:o-1', 'dead:o-1']);
    await bus.close();
  });

  it('drain resolves at once when nobody subscribes', async () => {
    const bus = createMemoryBus();
    await bus.publish([envelope('t', 'k')]);

    await expect(bus.drain()).resolves.toBeUndefined();
  });

  it('hands each handler its own copy, as a broker would', async () => {
    const bus = createMemoryBus();
    const got: unknown[] = [];
    await bus.subscribe({ groupId: 'a', topics: ['t'], handle: async (e) => void got.push(e.payload) });
    const sent = envelope('t', 'k', { at: new Date('2024-01-01T00:00:00Z') });

    await bus.publish([sent]);
    await bus.drain();

    expect(got).toEqual([{ at: '2024-01-01T00:00:00.000Z' }]);
  });
});
