import { Kafka, logLevel } from 'kafkajs';
import pino from 'pino';
import { describeWithEngines, uniqueName } from '@commerce/shared-testing';
import type { EventEnvelope } from '@commerce/shared-events';
import { createEventBus } from './create-event-bus';
import { envelope, eventually } from './event-bus.contract';
import { deadLetterTopic, type EventBus } from './event-bus.port';

// KAFKA_NAMESPACE on a real broker: two runs with the same topics and consumer groups, in two namespaces,
// never see each other's events; their topics and dead-letter topics are `<namespace>.<topic>` on Kafka.
describeWithEngines('event bus namespaces on Kafka', ['kafka'], (engines) => {
  const logger = pino({ level: process.env['LOG_LEVEL'] ?? 'error' });
  const opened: EventBus[] = [];
  // One topic and one group for both runs, as two copies of one service would have.
  const topic = `${uniqueName('ns_test')}.thing.v1`;
  const groupId = 'ns-test-consumer';
  const open = async (namespace: string) => {
    const bus = await createEventBus(engines.url('kafka'), { clientId: 'ns-test', logger, namespace });
    opened.push(bus);
    return bus;
  };
  afterAll(async () => {
    await Promise.all(opened.map((bus) => bus.close()));
  }, 30_000);

  it('keeps the events of two namespaces apart, with the same topic and consumer group in both', async () => {
    const [nsA, nsB] = [uniqueName('run_a'), uniqueName('run_b')];
    const [a, b] = await Promise.all([open(nsA), open(nsB)]);
    const seenByA: EventEnvelope[] = [];
    const seenByB: EventEnvelope[] = [];
    await Promise.all([
      a.subscribe({ groupId, topics: [topic], handle: async (e) => void seenByA.push(e) }),
      b.subscribe({ groupId, topics: [topic], handle: async (e) => void seenByB.push(e) }),
    ]);

    const fromA = [envelope(topic, 'a1'), envelope(topic, 'a2')];
    const fromB = [envelope(topic, 'b1')];
    await a.publish(fromA);
    await b.publish(fromB);

    await eventually(() => {
      expect(seenByA.map((e) => e.id).sort()).toEqual(fromA.map((e) => e.id).sort());
      expect(seenByB.map((e) => e.id)).toEqual(fromB.map((e) => e.id));
    }, 30_000);
    // Handlers get the event's own topic, not the namespaced one.
    expect(new Set([...seenByA, ...seenByB].map((e) => e.topic))).toEqual(new Set([topic]));

    // Nothing from the other namespace arrives later either: one more event each, and only it.
    const lateA = envelope(topic, 'a3');
    const lateB = envelope(topic, 'b2');
    await Promise.all([a.publish([lateA]), b.publish([lateB])]);
    await eventually(() => {
      expect(seenByA.map((e) => e.key).sort()).toEqual(['a1', 'a2', 'a3']);
      expect(seenByB.map((e) => e.key).sort()).toEqual(['b1', 'b2']);
    }, 30_000);

    const admin = new Kafka({ clientId: 'ns-test-admin', brokers: engines.url('kafka').split(','), logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      const topics = new Set(await admin.listTopics());
      expect([`${nsA}.${topic}`, `${nsB}.${topic}`, deadLetterTopic(`${nsA}.${topic}`)].filter((t) => !topics.has(t))).toEqual([]);
      expect(topics.has(topic)).toBe(false);
    } finally {
      await admin.disconnect();
    }
  }, 120_000);

  it("dead-letters a failing event to its namespace's dead-letter topic", async () => {
    const namespace = uniqueName('run_dlq');
    const bus = await open(namespace);
    const dlqSeen: EventEnvelope[] = [];
    // A reader of the dead-letter topic inside the same namespace.
    await bus.subscribe({ groupId: 'dlq-reader', topics: [deadLetterTopic(topic)], handle: async (e) => void dlqSeen.push(e) });
    await bus.subscribe({
      groupId,
      topics: [topic],
      maxAttempts: 1,
      handle: async () => {
        throw new Error('refused');
      },
    });

    const poison = envelope(topic, 'poison');
    await bus.publish([poison]);

    await eventually(() => expect(dlqSeen.map((e) => e.id)).toEqual([poison.id]), 30_000);
  }, 120_000);
});
