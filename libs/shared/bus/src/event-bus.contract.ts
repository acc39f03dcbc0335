import { randomUUID } from 'node:crypto';
import { currentRequestId, withRequestContext } from '@commerce/shared-logging';
import { uniqueName } from '@commerce/shared-testing';
import type { EventEnvelope } from '@commerce/shared-events';
import { deadLetterTopic, type EventBus, type Subscription } from './event-bus.port';

export type RawPublishingBus = EventBus & {
  publishRaw(topic: string, key: string, value: string, headers?: Record<string, string>): Promise<void>;
};

export interface RawMessage {
  key: string;
  value: string;
  headers: Record<string, string>;
}

export interface BusHarness {
  open(): Promise<RawPublishingBus>;
  /** The messages stored on a topic, as bytes on the wire, once there are at least `count`. */
  readRaw(bus: RawPublishingBus, topic: string, count: number): Promise<RawMessage[]>;
  /** How long a test may wait for a delivery. */
  timeoutMs: number;
}

export function envelope(topic: string, key: string, payload: unknown = {}, extra: Partial<EventEnvelope> = {}): EventEnvelope {
  return { id: randomUUID(), topic, key, type: 'ThingHappened', version: 1, occurredAt: new Date().toISOString(), payload, ...extra };
}

/** Polls until check passes (or throws its last failure after timeoutMs). */
export async function eventually(check: () => void | Promise<void>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

/**
 * The behaviour every EventBus must show: run on the memory bus (`memory-bus.spec.ts`) and on Kafka
 * (`kafka-bus.int-spec.ts`), so the embedded bus cannot drift from the real one.
 */
export function eventBusContract(harness: BusHarness): void {
  const { timeoutMs } = harness;
  let bus: RawPublishingBus;
  const subscriptions: Subscription[] = [];

  beforeAll(async () => {
    bus = await harness.open();
  }, 30_000);
  afterAll(async () => {
    await bus?.close();
  }, 30_000);
  afterEach(async () => {
    await Promise.all(subscriptions.splice(0).map((s) => s.stop()));
  }, 30_000);

  const topicName = () => uniqueName('t');
  const groupName = () => uniqueName('g');

  /** Subscribes and records what it handled. */
  async function collect(
    topic: string,
    groupId: string,
    /** True (a plain error) or the error to throw on that attempt. */
    options: { fail?: (e: EventEnvelope, attempt: number) => boolean | Error; maxAttempts?: number; fromBeginning?: boolean } = {},
  ) {
    const handled: EventEnvelope[] = [];
    const attempts = new Map<string, number>();
    const requestIds: Array<string | undefined> = [];
    const subscription = await bus.subscribe({
      groupId,
      topics: [topic],
      maxAttempts: options.maxAttempts,
      fromBeginning: options.fromBeginning,
      handle: async (e) => {
        const attempt = (attempts.get(e.id) ?? 0) + 1;
        attempts.set(e.id, attempt);
        const refusal = options.fail?.(e, attempt);
        if (refusal) throw refusal instanceof Error ? refusal : new Error(`refused ${e.id} on attempt ${attempt}`);
        requestIds.push(currentRequestId());
        handled.push(e);
      },
    });
    subscriptions.push(subscription);
    return { handled, attempts, requestIds, subscription };
  }

  it('delivers a published event whole to a subscriber', async () => {
    const topic = topicName();
    const { handled } = await collect(topic, groupName());
    const sent = envelope(topic, 'k1', { sku: 'A-1', quantity: 2 });

    await bus.publish([sent]);

    await eventually(() => expect(handled).toEqual([sent]), timeoutMs);
  });

  it('carries the publishing request id into the handler’s request context', async () => {
    const topic = topicName();
    const { handled, requestIds } = await collect(topic, groupName());

    await withRequestContext({ requestId: 'req-from-http' }, () => bus.publish([envelope(topic, 'k1')]));
    await bus.publish([envelope(topic, 'k1', {}, { requestId: 'req-explicit' })]);

    await eventually(() => expect(handled).toHaveLength(2), timeoutMs);
    expect(handled.map((e) => e.requestId)).toEqual(['req-from-http', 'req-explicit']);
    expect(requestIds).toEqual(['req-from-http', 'req-explicit']);
  });

  it('handles an event without request id inside a fresh request context', async () => {
    const topic = topicName();
    const { handled, requestIds } = await collect(topic, groupName());

    await bus.publish([envelope(topic, 'k1')]);

    await eventually(() => expect(handled).toHaveLength(1), timeoutMs);
    expect(requestIds[0]).toEqual(expect.any(String));
  });

  it('keeps the order of the events of one key', async () => {
    const topic = topicName();
    const { handled } = await collect(topic, groupName());
    const sent: EventEnvelope[] = [];
    for (let i = 0; i < 10; i++) sent.push(envelope(topic, `key-${i % 3}`, { n: i }));

    await bus.publish(sent.slice(0, 4));
    for (const e of sent.slice(4)) await bus.publish([e]);

    await eventually(() => expect(handled).toHaveLength(10), timeoutMs);
    for (const key of ['key-0', 'key-1', 'key-2']) {
      expect(handled.filter((e) => e.key === key).map((e) => e.id)).toEqual(sent.filter((e) => e.key === key).map((e) => e.id));
    }
  });

  it('gives every event to each of two groups', async () => {
    const topic = topicName();
    const a = await collect(topic, groupName());
    const b = await collect(topic, groupName());
    const sent = [envelope(topic, 'k1'), envelope(topic, 'k2'), envelope(topic, 'k3')];

    await bus.publish(sent);

    const ids = sent.map((e) => e.id).sort();
    await eventually(() => {
      expect(a.handled.map((e) => e.id).sort()).toEqual(ids);
      expect(b.handled.map((e) => e.id).sort()).toEqual(ids);
    }, timeoutMs);
  });

  it('shares the events of one group between its members', async () => {
    const topic = topicName();
    const groupId = groupName();
    const first = await collect(topic, groupId);
    const second = await collect(topic, groupId);
    const sent = Array.from({ length: 30 }, (_, i) => envelope(topic, `key-${i}`));

    await bus.publish(sent);

    await eventually(() => {
      const seen = new Set([...first.handled, ...second.handled].map((e) => e.id));
      expect(seen.size).toBe(30);
    }, timeoutMs);
    expect(first.handled.length).toBeGreaterThan(0);
    expect(second.handled.length).toBeGreaterThan(0);
  });

  it('delivers again an event whose handler threw, before the next event of its key', async () => {
    const topic = topicName();
    const failing = envelope(topic, 'k1', { n: 1 });
    const next = envelope(topic, 'k1', { n: 2 });
    const { handled, attempts } = await collect(topic, groupName(), { fail: (e, attempt) => e.id === failing.id && attempt < 3 });

    await bus.publish([failing, next]);

    await eventually(() => expect(handled.map((e) => e.id)).toEqual([failing.id, next.id]), timeoutMs);
    expect(attempts.get(failing.id)).toBe(3);
  });

  it('after maxAttempts sends the event to the dead-letter topic and goes on with the next', async () => {
    const topic = topicName();
    const doomed = envelope(topic, 'k1', { n: 1 });
    const next = envelope(topic, 'k1', { n: 2 });
    const { handled, attempts } = await collect(topic, groupName(), { maxAttempts: 2, fail: (e) => e.id === doomed.id });
    const dead = await collect(deadLetterTopic(topic), groupName());

    await bus.publish([doomed, next]);

    await eventually(() => expect(handled.map((e) => e.id)).toEqual([next.id]), timeoutMs);
    expect(attempts.get(doomed.id)).toBe(2);
    await eventually(() => expect(dead.handled.map((e) => e.id)).toEqual([doomed.id]), timeoutMs);
    const [raw] = await harness.readRaw(bus, deadLetterTopic(topic), 1);
    expect(raw).toMatchObject({
      key: 'k1',
      headers: { 'x-event-id': doomed.id, 'x-error': expect.stringContaining(`refused ${doomed.id}`) },
    });
  });

  /** What a handler throws when a pool's connection was not free in time (`DbAcquireTimeoutError` is one; decision 105). */
  const poolWait = () => Object.assign(new Error('no connection of the pool in time'), { infrastructureWait: true as const });

  it('tries again an event whose handler waited for the infrastructure, the attempts not counted: applied, not dead-lettered', async () => {
    const topic = topicName();
    const waiting = envelope(topic, 'k1', { n: 1 });
    const next = envelope(topic, 'k1', { n: 2 });
    // Four waits on a limit of two attempts; the even ones wrapped by the handler, as a use case may wrap what it caught.
    const { handled, attempts } = await collect(topic, groupName(), {
      maxAttempts: 2,
      fail: (e, attempt) =>
        e.id === waiting.id && attempt <= 4 && (attempt % 2 ? poolWait() : new Error('apply failed', { cause: poolWait() })),
    });
    const dead = await collect(deadLetterTopic(topic), groupName());

    await bus.publish([waiting, next]);

    await eventually(() => expect(handled.map((e) => e.id)).toEqual([waiting.id, next.id]), timeoutMs);
    expect(attempts.get(waiting.id)).toBe(5);
    expect(dead.handled).toEqual([]);
  });

  it('still counts the real failures of an event between its waits for the infrastructure, and dead-letters it at maxAttempts', async () => {
    const topic = topicName();
    const doomed = envelope(topic, 'k1', { n: 1 });
    const next = envelope(topic, 'k1', { n: 2 });
    const { handled, attempts } = await collect(topic, groupName(), {
      maxAttempts: 2,
      fail: (e, attempt) => e.id === doomed.id && (attempt === 2 || attempt === 3 ? poolWait() : true),
    });
    const dead = await collect(deadLetterTopic(topic), groupName());

    await bus.publish([doomed, next]);

    await eventually(() => expect(dead.handled.map((e) => e.id)).toEqual([doomed.id]), timeoutMs);
    await eventually(() => expect(handled.map((e) => e.id)).toEqual([next.id]), timeoutMs);
    // Failed, waited twice, failed: two counted attempts.
    expect(attempts.get(doomed.id)).toBe(4);
  });

  /** Subscribes with handleBatch too: records each batch (ids, request context) and each single delivery. */
  async function collectBatches(
    topic: string,
    /** True (a plain error) or the error to throw for that batch. */
    refuseBatch: (batch: EventEnvelope[]) => boolean | Error,
    refuse: (e: EventEnvelope) => boolean,
  ) {
    const batches: Array<{ ids: string[]; requestId: string | undefined }> = [];
    const singles: string[] = [];
    const subscription = await bus.subscribe({
      groupId: groupName(),
      topics: [topic],
      maxAttempts: 2,
      handleBatch: async (events) => {
        const refusal = refuseBatch(events);
        if (refusal) throw refusal instanceof Error ? refusal : new Error('batch refused');
        batches.push({ ids: events.map((e) => e.id), requestId: currentRequestId() });
      },
      handle: async (e) => {
        if (refuse(e)) throw new Error(`refused ${e.id}`);
        singles.push(e.id);
      },
    });
    subscriptions.push(subscription);
    return { batches, singles };
  }

  it('with handleBatch, hands over the consecutive events of one request together, in order, in its request context', async () => {
    const topic = topicName();
    const first = Array.from({ length: 5 }, (_, n) => envelope(topic, 'k1', { n }, { requestId: 'req-a' }));
    const second = Array.from({ length: 3 }, (_, n) => envelope(topic, 'k1', { n }, { requestId: 'req-b' }));
    const alone = envelope(topic, 'k1', { n: 9 }, { requestId: 'req-c' });
    await bus.publish([...first, ...second, alone]);
    const { batches, singles } = await collectBatches(
      topic,
      () => false,
      () => false,
    );

    await eventually(() => expect([...batches.flatMap((b) => b.ids), ...singles]).toHaveLength(9), timeoutMs);
    // However the broker splits its fetches, a batch never mixes requests and order is kept.
    for (const b of batches)
      expect(new Set(b.ids.map((id) => [...first, ...second].find((e) => e.id === id)?.requestId))).toEqual(new Set([b.requestId]));
    expect(batches.length).toBeGreaterThan(0);
    expect(singles).toContain(alone.id);
    const order = [...first, ...second, alone].map((e) => e.id);
    const seen = [...batches.flatMap((b) => b.ids), ...singles].sort((a, b) => order.indexOf(a) - order.indexOf(b));
    expect(seen).toEqual(order);
  });

  it('with handleBatch, a batch that throws is handled one event at a time, and only its bad event is dead-lettered', async () => {
    const topic = topicName();
    const events = Array.from({ length: 4 }, (_, n) => envelope(topic, 'k1', { n }, { requestId: 'req-batch' }));
    const bad = events[2]!;
    const dead = await collect(deadLetterTopic(topic), groupName());
    await bus.publish(events);
    const { batches, singles } = await collectBatches(
      topic,
      (batch) => batch.some((e) => e.id === bad.id),
      (e) => e.id === bad.id,
    );

    await eventually(() => expect(dead.handled.map((e) => e.id)).toEqual([bad.id]), timeoutMs);
    await eventually(
      () =>
        expect([...batches.flatMap((b) => b.ids), ...singles].sort()).toEqual(
          events
            .filter((e) => e !== bad)
            .map((e) => e.id)
            .sort(),
        ),
      timeoutMs,
    );
  });

  it('with handleBatch, a run that waited for the infrastructure is tried again as a run, not one by one', async () => {
    const topic = topicName();
    const events = Array.from({ length: 4 }, (_, n) => envelope(topic, 'k1', { n }, { requestId: 'req-waits' }));
    const refused: string[][] = [];
    const dead = await collect(deadLetterTopic(topic), groupName());
    await bus.publish(events);
    const { batches, singles } = await collectBatches(
      topic,
      (batch) => refused.length < 3 && (refused.push(batch.map((e) => e.id)), poolWait()),
      () => false,
    );

    const ids = events.map((e) => e.id);
    await eventually(() => expect([...batches.flatMap((b) => b.ids), ...singles].sort()).toEqual([...ids].sort()), timeoutMs);
    expect(refused).toHaveLength(3);
    // However the broker split the events, the refused run came back whole, as a run: none of it went one by one.
    expect(singles.filter((id) => refused.flat().includes(id))).toEqual([]);
    expect(batches.map((b) => b.ids)).toContainEqual(refused[0]);
    expect(dead.handled).toEqual([]);
  });

  it('sends a message that is not an event envelope straight to the dead-letter topic', async () => {
    const topic = topicName();
    const { handled, attempts } = await collect(topic, groupName());
    const valid = envelope(topic, 'k1');

    await bus.publishRaw(topic, 'k1', 'this is not json');
    await bus.publishRaw(topic, 'k1', JSON.stringify({ hello: 'world' }));
    await bus.publish([valid]);

    await eventually(() => expect(handled.map((e) => e.id)).toEqual([valid.id]), timeoutMs);
    expect(attempts.size).toBe(1);
    const dead = await harness.readRaw(bus, deadLetterTopic(topic), 2);
    expect(dead.map((m) => m.value)).toEqual(['this is not json', JSON.stringify({ hello: 'world' })]);
    expect(dead[0]?.headers['x-error']).toContain('not JSON');
  });

  it('after stop delivers nothing more to that member, and the group resumes after what it handled', async () => {
    const topic = topicName();
    const groupId = groupName();
    const first = await collect(topic, groupId);
    const before = envelope(topic, 'k1');
    await bus.publish([before]);
    await eventually(() => expect(first.handled).toHaveLength(1), timeoutMs);

    await first.subscription.stop();
    const after = envelope(topic, 'k1');
    await bus.publish([after]);
    const second = await collect(topic, groupId);

    await eventually(() => expect(second.handled.map((e) => e.id)).toEqual([after.id]), timeoutMs);
    expect(first.handled.map((e) => e.id)).toEqual([before.id]);
  });

  it('with fromBeginning false, a new group gets only what is published after it subscribed', async () => {
    const topic = topicName();
    const old = envelope(topic, 'k1');
    await bus.publish([old]);
    const late = await collect(topic, groupName(), { fromBeginning: false });
    const early = await collect(topic, groupName());
    const fresh = envelope(topic, 'k1');

    await bus.publish([fresh]);

    await eventually(() => expect(early.handled.map((e) => e.id)).toEqual([old.id, fresh.id]), timeoutMs);
    await eventually(() => expect(late.handled.map((e) => e.id)).toEqual([fresh.id]), timeoutMs);
  });

  it('answers ping while open, and refuses to publish once closed', async () => {
    const own = await harness.open();
    const topic = topicName();
    const sub = await own.subscribe({ groupId: groupName(), topics: [topic], handle: async () => undefined });
    await expect(own.ping()).resolves.toBeUndefined();

    await own.close();

    await expect(own.publish([envelope(topic, 'k1')])).rejects.toThrow('closed');
    await expect(sub.stop()).resolves.toBeUndefined();
  }, 30_000);
}
