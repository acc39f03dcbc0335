import { deadLetterTopic } from './event-bus.port';
import { envelope, eventBusContract, type RawPublishingBus } from './event-bus.contract';
import { createMemoryBus, type MemoryBus } from './memory-bus';

describe('EventBus contract on the memory bus', () => {
  eventBusContract({
    open: async () => createMemoryBus(),
    readRaw: async (bus: RawPublishingBus, topic: string) => (bus as MemoryBus).messages(topic),
    timeoutMs: 2000,
  });
});

describe('memory bus', () => {
  it('takes the Kafka-only options (fetch size, session timeout) and delivers as without them', async () => {
    const bus = createMemoryBus();
    const handled: string[] = [];
    await bus.subscribe({
      groupId: 'g',
      topics: ['t'],
      sessionTimeout: 6000,
      maxBytesPerPartition: 4 * 1024 * 1024,
      handle: async (e) => void handled.push(e.id),
    });
    const events = [envelope('t', 'k'), envelope('t', 'k')];
    await bus.publish(events);
    await bus.drain();
    expect(handled).toEqual(events.map((e) => e.id));
    await bus.close();
  });

  it('resolves publish before any handler runs', async () => {
    const bus = createMemoryBus();
    const handled: string[] = [];
    await bus.subscribe({ groupId: 'g', topics: ['t'], handle: async (e) => void handled.push(e.id) });

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
