import type { EventEnvelope } from '@commerce/shared-events';
import { BusUnavailableError } from './kafka-bus';
import { busNaming, createEventBus, withBusNaming } from './create-event-bus';
import { deadLetterTopic } from './event-bus.port';
import { encodeEnvelope, headersOf } from './envelope-codec';
import { envelope } from './event-bus.contract';
import { createMemoryBus } from './memory-bus';
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

describe('withBusNaming', () => {
  const logger = pino({ level: 'silent' });

  it('publishes to and reads `<namespace>.<topic>` and hands handlers the event with its own topic', async () => {
    const broker = createMemoryBus({ logger });
    const bus = withBusNaming(broker, { namespace: 'run-1' });
    const handled: EventEnvelope[] = [];
    await bus.subscribe({ groupId: 'g', topics: ['catalog.product.v1'], handle: async (e) => void handled.push(e) });

    const sent = envelope('catalog.product.v1', 'k1', { n: 1 });
    // Serialised (the outbox relay's publishEncoded, decision 99): the same topic, the same event handed over.
    const encoded = envelope('catalog.product.v1', 'k1', { n: 2 });
    await bus.publish([sent]);
    await bus.publishEncoded?.([{ topic: encoded.topic, key: encoded.key, value: encodeEnvelope(encoded), headers: headersOf(encoded) }]);
    await broker.drain();

    expect(broker.messages('catalog.product.v1')).toEqual([]);
    expect(broker.messages('run-1.catalog.product.v1').map((m) => [m.key, m.headers['x-event-id']])).toEqual([
      ['k1', sent.id],
      ['k1', encoded.id],
    ]);
    expect(handled).toEqual([sent, encoded]);
  });

  it('keeps two namespaces on one broker apart, even with the same topics and consumer groups', async () => {
    const broker = createMemoryBus({ logger });
    const a = withBusNaming(broker, { namespace: 'a' });
    const b = withBusNaming(broker, { namespace: 'b' });
    const seenByA: string[] = [];
    const seenByB: string[] = [];
    await a.subscribe({ groupId: 'order-payments', topics: ['t'], handle: async (e) => void seenByA.push(e.key) });
    await b.subscribe({ groupId: 'order-payments', topics: ['t'], handle: async (e) => void seenByB.push(e.key) });

    await a.publish([envelope('t', 'from-a-1'), envelope('t', 'from-a-2')]);
    await b.publish([envelope('t', 'from-b')]);
    await broker.drain();

    expect(seenByA.sort()).toEqual(['from-a-1', 'from-a-2']);
    expect(seenByB).toEqual(['from-b']);
  });

  it('dead-letters to the namespaced topic', async () => {
    const broker = createMemoryBus({ logger, retryBaseMs: 1 });
    const bus = withBusNaming(broker, { namespace: 'ns' });
    await bus.subscribe({
      groupId: 'g',
      topics: ['t'],
      maxAttempts: 2,
      handle: async () => {
        throw new Error('boom');
      },
    });

    await bus.publish([envelope('t', 'poison')]);
    await broker.drain();

    expect(broker.messages(deadLetterTopic('ns.t')).map((m) => m.key)).toEqual(['poison']);
    expect(broker.messages(deadLetterTopic('t'))).toEqual([]);
  });

  it('hands a batch handler the events with their own topic', async () => {
    const broker = createMemoryBus({ logger });
    const bus = withBusNaming(broker, { namespace: 'ns' });
    const batches: string[][] = [];
    await bus.subscribe({
      groupId: 'g',
      topics: ['t'],
      handle: async (e) => void batches.push([e.topic]),
      handleBatch: async (events) => void batches.push(events.map((e) => e.topic)),
    });

    // One request id and one key: one partition, consecutive, so one batch.
    await bus.publish([envelope('t', 'k', {}, { requestId: 'r1' }), envelope('t', 'k', {}, { requestId: 'r1' })]);
    await broker.drain();

    expect(batches).toEqual([['t', 't']]);
  });

  it('puts the group prefix after the namespace: two prefixes in one namespace each get every event', async () => {
    const broker = createMemoryBus({ logger });
    const first = withBusNaming(broker, { namespace: 'ns', groupPrefix: 'one-' });
    const second = withBusNaming(broker, { namespace: 'ns', groupPrefix: 'two-' });
    const seen: string[] = [];
    await first.subscribe({ groupId: 'g', topics: ['t'], handle: async (e) => void seen.push(`first:${e.key}`) });
    await second.subscribe({ groupId: 'g', topics: ['t'], handle: async (e) => void seen.push(`second:${e.key}`) });

    await first.publish([envelope('t', 'k')]);
    await broker.drain();

    expect(seen.sort()).toEqual(['first:k', 'second:k']);
  });

  it('is the bus itself when neither is set', () => {
    const broker = createMemoryBus({ logger });
    expect(withBusNaming(broker, {})).toBe(broker);
    expect(withBusNaming(broker, busNaming({ KAFKA_NAMESPACE: '', KAFKA_GROUP_PREFIX: '' }))).toBe(broker);
  });

  it('createEventBus refuses a namespace Kafka cannot name a topic with, before reaching Kafka', async () => {
    await expect(createEventBus('127.0.0.1:1', { clientId: 'test', logger, namespace: 'a/b' })).rejects.toThrow(
      'event bus: invalid namespace "a/b" (expected letters, digits, . _ -, not starting with .)',
    );
  });
});
