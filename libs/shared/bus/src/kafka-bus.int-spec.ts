import { Kafka, logLevel } from 'kafkajs';
import pino, { type Logger } from 'pino';
import { describeWithEngines, uniqueName } from '@commerce/shared-testing';
import type { EventEnvelope } from '@commerce/shared-events';
import { envelope, eventBusContract, eventually, type RawMessage } from './event-bus.contract';
import { sleep } from './envelope-codec';
import type { SubscribeOptions } from './event-bus.port';
import { createKafkaBus, type KafkaBus } from './kafka-bus';
import { observeKafka } from './kafka-instruments';

/** Reads a topic from its start with a throw-away group until `count` messages came. */
async function readRaw(brokers: string, topic: string, count: number): Promise<RawMessage[]> {
  const consumer = new Kafka({ clientId: 'read-raw', brokers: brokers.split(','), logLevel: logLevel.NOTHING }).consumer({
    groupId: uniqueName('read_raw'),
    maxWaitTimeInMs: 100,
  });
  const got: RawMessage[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    const done = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`read ${got.length} of ${count} messages from ${topic}`)), 20_000);
      void consumer.run({
        eachMessage: async ({ message }) => {
          const headers = Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, String(v)]));
          got.push({ key: message.key?.toString() ?? '', value: message.value?.toString() ?? '', headers });
          if (got.length >= count) {
            clearTimeout(timer);
            resolve();
          }
        },
      });
    });
    await done;
    return got;
  } finally {
    await consumer.disconnect();
  }
}

/** What the membership specs below work with: a bus, a fresh topic and group, and the group as the broker sees it. */
interface Group {
  bus: KafkaBus;
  topic: string;
  groupId: string;
  /** The group's member ids now. */
  members(): Promise<string[]>;
  /** The offsets the group committed on the topic, summed over its partitions. */
  committed(): Promise<number>;
}

/** Runs `body` with a group named after `name` on `brokers`, and closes its bus and admin client after. */
async function withGroup(brokers: string, name: string, logger: Logger, body: (group: Group) => Promise<void>): Promise<void> {
  const bus = await createKafkaBus(brokers.split(','), { clientId: `${name}-test`, logger });
  const admin = new Kafka({ clientId: `${name}-admin`, brokers: brokers.split(','), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  const topic = uniqueName(name.replaceAll('-', '_'));
  const groupId = uniqueName(name.replaceAll('-', '_'));
  try {
    await body({
      bus,
      topic,
      groupId,
      members: async () => (await admin.describeGroups([groupId])).groups[0]?.members.map((m) => m.memberId) ?? [],
      committed: async () => {
        const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
        return offsets!.partitions.reduce((sum, p) => sum + Math.max(0, Number(p.offset)), 0);
      },
    });
  } finally {
    await bus.close();
    await admin.disconnect();
  }
}

describeWithEngines('EventBus contract on Kafka', ['kafka'], (engines) => {
  const logger = pino({ level: process.env['LOG_LEVEL'] ?? 'error' });
  eventBusContract({
    open: async () => createKafkaBus(engines.url('kafka').split(','), { clientId: 'shared-bus-test', logger }),
    readRaw: (_bus, topic, count) => readRaw(engines.url('kafka'), topic, count),
    timeoutMs: 20_000,
  });
});

describeWithEngines('Kafka bus start-up log', ['kafka'], (engines) => {
  it('carries no warning or error when a bus starts, and starts again on topics that exist', async () => {
    const lines: Array<{ level: number; msg: string }> = [];
    const logger = pino(
      { level: 'warn' },
      { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) },
    );
    const topic = uniqueName('startup');
    const groupId = uniqueName('startup');
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      for (let start = 1; start <= 2; start++) {
        const bus = await createKafkaBus(engines.url('kafka').split(','), { clientId: 'startup-log-test', logger });
        const handled: string[] = [];
        await bus.subscribe({ groupId, topics: [topic], handle: async (e) => void handled.push(e.id) });
        const event = envelope(topic, 'k');
        await bus.publish([event]);
        await eventually(() => expect(handled).toContain(event.id), 20_000);
        await bus.close();
      }
    } finally {
      process.off('warning', onWarning);
    }
    expect(lines.map((l) => l.msg)).toEqual([]);
    expect(warnings).toEqual([]);
  }, 90_000);
});

describeWithEngines('Kafka bus: a publish larger than the broker takes in one record batch', ['kafka'], (engines) => {
  it('publishes 3 MB of envelopes in one call (split by bytes), every one once and in order per key', async () => {
    const logger = pino({ level: 'error' });
    const bus = await createKafkaBus(engines.url('kafka').split(','), { clientId: 'large-publish-test', logger });
    try {
      const topic = uniqueName('large_publish');
      // ~5 kB each, 600 of them on two keys: one request would carry ~1.5 MB a partition (the broker's limit is 1 MB).
      const events = Array.from({ length: 600 }, (_, i) => envelope(topic, `k${i % 2}`, { n: i, text: 'x'.repeat(5000) }));
      const handled: Array<{ key: string; n: number }> = [];
      await bus.subscribe({
        groupId: uniqueName('large_publish'),
        topics: [topic],
        handle: async (e) => void handled.push({ key: e.key, n: (e.payload as { n: number }).n }),
      });
      await bus.publish(events);
      await eventually(() => expect(handled).toHaveLength(600), 30_000);
      for (const key of ['k0', 'k1']) {
        const ns = handled.filter((h) => h.key === key).map((h) => h.n);
        expect(ns).toEqual(events.filter((e) => e.key === key).map((e) => (e.payload as { n: number }).n));
      }
    } finally {
      await bus.close();
    }
  }, 90_000);
});

describeWithEngines('Kafka bus: a handler longer than the session timeout keeps its membership', ['kafka'], (engines) => {
  // A 6 s session (the broker's floor) and handlers of 9 s: without heartbeats while a handler runs the
  // broker evicts the member mid-handler, its commit is refused and the event is handled again.
  const sessionTimeout = 6000;
  const handlerMs = 9000;

  /** Subscribes with `options`, publishes `events`, and checks they are handled once, committed once, by one member. */
  const handledOnceBySameMember = async (
    options: (handled: string[]) => Omit<SubscribeOptions, 'groupId' | 'topics'>,
    events: (topic: string) => EventEnvelope[],
  ): Promise<void> => {
    const lines: Array<{ level: number; msg: string }> = [];
    const logger = pino(
      { level: 'warn' },
      { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) },
    );
    await withGroup(engines.url('kafka'), 'long-handler', logger, async ({ bus, topic, groupId, members, committed }) => {
      const handled: string[] = [];
      await bus.subscribe({ groupId, topics: [topic], sessionTimeout, ...options(handled) });
      const joined = await members();
      expect(joined).toHaveLength(1);
      const published = events(topic);
      await bus.publish(published);
      await eventually(() => expect(handled).toHaveLength(published.length), 60_000);
      // Long enough for a second delivery, had the member been evicted and the events handed out again.
      await sleep(sessionTimeout);
      expect(handled).toEqual(published.map((e) => e.id));
      // Committed once, past the events: the group's offsets sum to what was published.
      expect(await committed()).toBe(published.length);
      // The member that joined first is still the only one: no eviction, no rejoin under a new member id.
      expect(await members()).toEqual(joined);
      expect(lines.map((l) => l.msg)).toEqual([]);
    });
  };

  it('handles an event whose handler outlasts the session once, commits it once, and stays the same member', async () => {
    await handledOnceBySameMember(
      (handled) => ({
        handle: async (e) => {
          await sleep(handlerMs);
          handled.push(e.id);
        },
      }),
      (topic) => [envelope(topic, 'k')],
    );
  }, 120_000);

  it('does the same for a run of one request (handleBatch)', async () => {
    const runs: number[] = [];
    await handledOnceBySameMember(
      (handled) => ({
        maxBytesPerPartition: 2 * 1024 * 1024,
        handle: async (e) => void handled.push(e.id),
        handleBatch: async (events) => {
          await sleep(handlerMs);
          runs.push(events.length);
          handled.push(...events.map((e) => e.id));
        },
      }),
      (topic) => Array.from({ length: 3 }, () => envelope(topic, 'k', {}, { requestId: 'one-request' })),
    );
    expect(runs).toEqual([3]);
  }, 120_000);
});

describeWithEngines('Kafka bus: a backlog of many requests (batchAcrossRequests)', ['kafka'], (engines) => {
  /** The runs `handleBatch` got for six events of six requests on one key, published before the group subscribed. */
  const runsOfBacklog = async (batchAcrossRequests: boolean): Promise<number[]> => {
    const logger = pino({ level: 'silent' });
    const runs: number[] = [];
    await withGroup(engines.url('kafka'), 'backlog', logger, async ({ bus, topic, groupId }) => {
      const published = Array.from({ length: 6 }, (_, i) => envelope(topic, 'k', {}, { requestId: `request-${i}` }));
      await bus.publish(published);
      const handled: string[] = [];
      await bus.subscribe({
        groupId,
        topics: [topic],
        batchAcrossRequests,
        handle: async (e) => void handled.push(e.id),
        handleBatch: async (events) => {
          runs.push(events.length);
          handled.push(...events.map((e) => e.id));
        },
      });
      await eventually(() => expect(handled).toEqual(published.map((e) => e.id)), 30_000);
    });
    return runs;
  };

  it('hands a waiting backlog over in runs of many requests, in order, each event once', async () => {
    const runs = await runsOfBacklog(true);
    // One fetch brings the six; at most a fetch boundary splits them.
    expect(runs.length).toBeLessThanOrEqual(2);
    expect(runs.reduce((a, b) => a + b, 0)).toBe(6);
  }, 60_000);

  it('without it, one request a run (a lone event goes to handle)', async () => {
    expect(await runsOfBacklog(false)).toEqual([]);
  }, 60_000);
});

describeWithEngines('Kafka bus: its clients tell their requests (kafka_requests_total)', ['kafka'], (engines) => {
  afterEach(() => observeKafka(undefined));

  it('tells the observer each request by API: Produce for a publish, Fetch and OffsetCommit for a consumer', async () => {
    const requests = new Map<string, number>();
    observeKafka({ request: (api) => void requests.set(api, (requests.get(api) ?? 0) + 1) });
    await withGroup(engines.url('kafka'), 'requests', pino({ level: 'silent' }), async ({ bus, topic, groupId }) => {
      const handled: string[] = [];
      await bus.subscribe({ groupId, topics: [topic], handle: async (e) => void handled.push(e.id) });
      const produced = requests.get('Produce') ?? 0;
      const sent = envelope(topic, 'k');
      await bus.publish([sent]);
      expect((requests.get('Produce') ?? 0) - produced).toBe(1);
      await eventually(() => expect(handled).toEqual([sent.id]), 20_000);
      await eventually(() => expect(requests.get('OffsetCommit') ?? 0).toBeGreaterThanOrEqual(1), 10_000);
      expect(requests.get('Fetch') ?? 0).toBeGreaterThanOrEqual(1);
    });
  }, 60_000);
});

describeWithEngines('Kafka bus: a gathering subscription (gatherMs)', ['kafka'], (engines) => {
  /** The runs `handleBatch` got for ten events of ten requests on one key, published one by one ~20 ms apart after the join. */
  const runsOfTrickle = async (gatherMs: number | undefined): Promise<number[]> => {
    const logger = pino({ level: 'silent' });
    const runs: number[] = [];
    await withGroup(engines.url('kafka'), 'gather', logger, async ({ bus, topic, groupId, committed }) => {
      const handled: string[] = [];
      await bus.subscribe({
        groupId,
        topics: [topic],
        ...(gatherMs === undefined ? {} : { gatherMs }),
        batchAcrossRequests: true,
        handle: async (e) => {
          runs.push(1);
          handled.push(e.id);
        },
        handleBatch: async (events) => {
          runs.push(events.length);
          handled.push(...events.map((e) => e.id));
        },
      });
      const published = Array.from({ length: 10 }, (_, i) => envelope(topic, 'k', {}, { requestId: `request-${i}` }));
      for (const event of published) {
        await bus.publish([event]);
        await sleep(20);
      }
      await eventually(() => expect(handled).toEqual(published.map((e) => e.id)), 30_000);
      // Committed as far as handled, once the fetched batch ended.
      await eventually(async () => expect(await committed()).toBe(published.length), 10_000);
    });
    return runs;
  };

  it('hands events published apart over together: the broker holds the fetch while they trickle in', async () => {
    // The fetch held for 2 s: at most one fetch's end falls within the ~0.5 s the ten take to come.
    const runs = await runsOfTrickle(2000);
    expect(runs.length).toBeLessThanOrEqual(2);
    expect(runs.reduce((a, b) => a + b, 0)).toBe(10);
  }, 60_000);

  it('without it, a fetch answers at the first event: the trickle comes in many runs', async () => {
    expect((await runsOfTrickle(undefined)).length).toBeGreaterThan(2);
  }, 60_000);
});

describeWithEngines('Kafka bus: a graceful stop', ['kafka'], (engines) => {
  it('commits what it handled before it leaves: the next member of the group gets the rest, nothing twice', async () => {
    await withGroup(engines.url('kafka'), 'graceful-stop', pino({ level: 'silent' }), async ({ bus, topic, groupId, committed }) => {
      // One key, one partition: a backlog that one fetch brings as one batch, handled in ~1.2 s.
      const published = Array.from({ length: 8 }, () => envelope(topic, 'k'));
      await bus.publish(published);
      const first: string[] = [];
      const subscription = await bus.subscribe({
        groupId,
        topics: [topic],
        handle: async (e) => {
          await sleep(150);
          first.push(e.id);
        },
      });
      // Stopped mid-batch, well before the batch's first commit of a long batch (after 1 s).
      await eventually(() => expect(first.length).toBeGreaterThanOrEqual(2), 20_000);
      await subscription.stop();
      expect(first.length).toBeLessThan(published.length);
      expect(await committed()).toBe(first.length);
      const second: string[] = [];
      await bus.subscribe({ groupId, topics: [topic], handle: async (e) => void second.push(e.id) });
      await eventually(() => expect([...first, ...second]).toEqual(published.map((e) => e.id)), 20_000);
      // Long enough for a redelivery to show.
      await sleep(2000);
      expect([...first, ...second]).toEqual(published.map((e) => e.id));
    });
  }, 60_000);
});

describeWithEngines('Kafka bus: a handler past its time limit gives its partitions up', ['kafka'], (engines) => {
  // A handler that never settles the first time it is called: heartbeats keep its membership (decision 75),
  // so only the time limit gets the event handled again (decision 76).
  const handlerTimeoutMs = 3000;

  const handledAgainByANewMember = async (
    options: (calls: string[], done: string[]) => Omit<SubscribeOptions, 'groupId' | 'topics'>,
    events: (topic: string) => EventEnvelope[],
  ): Promise<void> => {
    const logger = pino({ level: process.env['LOG_LEVEL'] ?? 'silent' });
    await withGroup(engines.url('kafka'), 'hung-handler', logger, async ({ bus, topic, groupId, members, committed }) => {
      const calls: string[] = [];
      const done: string[] = [];
      await bus.subscribe({ groupId, topics: [topic], sessionTimeout: 6000, handlerTimeoutMs, ...options(calls, done) });
      const [first] = await members();
      const published = events(topic);
      await bus.publish(published);
      await eventually(() => expect(done).toEqual(published.map((e) => e.id)), 60_000);
      // The hung run was given up and its events handled again, by a member that is not the first one.
      expect(calls.length).toBeGreaterThan(published.length);
      await eventually(async () => expect((await members()).filter((m) => m !== first)).toHaveLength(1), 30_000);
      expect(await members()).not.toContain(first);
      // Committed past the events, and later events still flow.
      const later = envelope(topic, 'later');
      await bus.publish([later]);
      await eventually(() => expect(done).toContain(later.id), 30_000);
      await eventually(async () => expect(await committed()).toBe(published.length + 1), 20_000);
    });
  };

  it('handles an event whose handler hangs again in a new member, and goes on', async () => {
    await handledAgainByANewMember(
      (calls, done) => ({
        handle: async (e) => {
          calls.push(e.id);
          if (calls.length === 1) await new Promise(() => undefined);
          done.push(e.id);
        },
      }),
      (topic) => [envelope(topic, 'k')],
    );
  }, 120_000);

  it('does the same for a run of one request (handleBatch)', async () => {
    await handledAgainByANewMember(
      (calls, done) => ({
        handle: async (e) => {
          calls.push(e.id);
          done.push(e.id);
        },
        handleBatch: async (events) => {
          calls.push(...events.map((e) => e.id));
          if (calls.length === events.length) await new Promise(() => undefined);
          done.push(...events.map((e) => e.id));
        },
      }),
      (topic) => Array.from({ length: 3 }, () => envelope(topic, 'k', {}, { requestId: 'one-request' })),
    );
  }, 120_000);
});

describeWithEngines('Kafka bus: a handler that hangs every time on one event gets it dead-lettered', ['kafka'], (engines) => {
  // Every call on the poisoned event hangs; a limit of 3 s and two time-outs an event (decision 85): before,
  // its consumer was replaced after each time-out for ever and the partition never moved on.
  const handlerTimeoutMs = 3000;
  const maxHandlerTimeouts = 2;

  /** A `handle` that never settles on the poisoned event, and handles the others. */
  const hangingOn =
    (poisoned: () => string, calls: string[], done: string[]) =>
    async (e: EventEnvelope): Promise<void> => {
      calls.push(e.id);
      if (e.id === poisoned()) await new Promise(() => undefined);
      done.push(e.id);
    };

  const deadLetteredAndMovedOn = async (
    options: (poisoned: () => string, calls: string[], done: string[]) => Omit<SubscribeOptions, 'groupId' | 'topics'>,
    events: (topic: string) => EventEnvelope[],
    poisonedAt: number,
  ): Promise<void> => {
    const logger = pino({ level: process.env['LOG_LEVEL'] ?? 'silent' });
    await withGroup(engines.url('kafka'), 'hangs-always', logger, async ({ bus, topic, groupId, committed }) => {
      const calls: string[] = [];
      const done: string[] = [];
      const published = events(topic);
      const poisoned = published[poisonedAt]!.id;
      await bus.subscribe({
        groupId,
        topics: [topic],
        sessionTimeout: 6000,
        handlerTimeoutMs,
        maxHandlerTimeouts,
        ...options(() => poisoned, calls, done),
      });
      // One key: one partition, so the events after the poisoned one wait behind it.
      await bus.publish(published);
      const others = published.filter((e) => e.id !== poisoned).map((e) => e.id);
      await eventually(() => expect(done).toEqual(others), 120_000);
      // The poisoned event's handler was called as often as allowed on its own (a run's time-out is not counted
      // against it), and the event went to the dead-letter topic with the reason.
      expect(calls.filter((id) => id === poisoned).length).toBeGreaterThanOrEqual(maxHandlerTimeouts);
      const [dead] = await readRaw(engines.url('kafka'), `${topic}.dlq`, 1);
      expect(JSON.parse(dead!.value).id).toBe(poisoned);
      expect(dead!.headers['x-error']).toBe(
        `HandlerTimeoutError: event handler timed out ${maxHandlerTimeouts} times on this event (${handlerTimeoutMs} ms each): dead-lettered`,
      );
      expect(dead!.headers['x-original-topic']).toBe(topic);
      // Committed past every event, the poisoned one too; and later events flow.
      await eventually(async () => expect(await committed()).toBe(published.length), 20_000);
      const later = envelope(topic, 'k');
      await bus.publish([later]);
      await eventually(() => expect(done).toContain(later.id), 30_000);
    });
  };

  it('dead-letters an event whose handler hangs at every attempt, then handles the events behind it', async () => {
    await deadLetteredAndMovedOn(
      (poisoned, calls, done) => ({
        handle: hangingOn(poisoned, calls, done),
      }),
      (topic) => [envelope(topic, 'k'), envelope(topic, 'k'), envelope(topic, 'k')],
      1,
    );
  }, 180_000);

  it('does the same for an event in a run of one request (handleBatch): the run is handled one by one', async () => {
    await deadLetteredAndMovedOn(
      (poisoned, calls, done) => ({
        handle: hangingOn(poisoned, calls, done),
        handleBatch: async (events) => {
          if (events.some((e) => e.id === poisoned())) await new Promise(() => undefined);
          done.push(...events.map((e) => e.id));
        },
      }),
      (topic) => Array.from({ length: 3 }, () => envelope(topic, 'k', {}, { requestId: 'one-request' })),
      1,
    );
  }, 180_000);
});
