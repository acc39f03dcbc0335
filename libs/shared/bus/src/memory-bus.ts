import { createHash } from 'node:crypto';
import { isInfrastructureWait } from '@commerce/shared-errors';
import { newRequestId, withRequestContext, type Logger } from '@commerce/shared-logging';
import type { EventEnvelope } from '@commerce/shared-events';
import { deadLetterTopic, type EncodedEvent, type EventBus, type SubscribeOptions, type Subscription } from './event-bus.port';
import {
  DEFAULT_MAX_ATTEMPTS,
  DEFAULT_MAX_BATCH,
  ERROR_HEADER,
  decodeEnvelope,
  encodedEvent,
  errorText,
  batchRequestId,
  requestBatch,
  retryDelayMs,
  sleep,
} from './envelope-codec';

/** The in-memory bus, plus what tests and the all-in-one need to wait for quiet. */
export interface MemoryBus extends EventBus {
  readonly kind: 'memory';
  /** Resolves once every subscribed group has handled (or dead-lettered) everything published so far. */
  drain(): Promise<void>;
  /** Stores a raw value as Kafka would receive it from a foreign producer (tests of poison messages). */
  publishRaw(topic: string, key: string, value: string, headers?: Record<string, string>): Promise<void>;
  /** Every message stored on a topic, oldest first, decoded where possible (tests, DLQ inspection). */
  messages(topic: string): Array<{ key: string; value: string; headers: Record<string, string> }>;
}

export interface MemoryBusOptions {
  logger?: Logger;
  /** Partitions per topic; members of a group share them, as in Kafka (default 3). */
  partitions?: number;
  /** First retry pause; doubles per attempt up to 100 ms (default 5). */
  retryBaseMs?: number;
}

interface Stored {
  key: string;
  // Kept serialised, as on Kafka: a handler never sees another's mutations, and a Date becomes a string.
  value: string;
  headers: Record<string, string>;
}

interface Member {
  topics: string[];
  handle: SubscribeOptions['handle'];
  handleBatch: SubscribeOptions['handleBatch'];
  maxBatch: number;
  maxAttempts: number;
  stopped: boolean;
  inFlight: Set<Promise<unknown>>;
}

interface Group {
  /** Next offset per `topic#partition`: the committed position. */
  offsets: Map<string, number>;
  members: Member[];
}

/**
 * The event bus of `npm start` and unit tests, with Kafka's semantics: topics of keyed messages split
 * into partitions by key, consumer groups that each get every message (members share partitions),
 * per-key order, at-least-once delivery with retries, then the dead-letter topic. Delivery is
 * asynchronous: `publish` resolves once stored.
 */
export function createMemoryBus(options: MemoryBusOptions = {}): MemoryBus {
  const partitionCount = options.partitions ?? 3;
  const retryBaseMs = options.retryBaseMs ?? 5;
  const logger = options.logger;
  const logs = new Map<string, Stored[][]>();
  const groups = new Map<string, Group>();
  const running = new Set<string>();
  const idleWaiters: Array<() => void> = [];
  let kickScheduled = false;
  let closed = false;

  const logOf = (topic: string): Stored[][] => {
    let log = logs.get(topic);
    if (!log) {
      log = Array.from({ length: partitionCount }, () => []);
      logs.set(topic, log);
    }
    return log;
  };

  const partitionLog = (topic: string, partition: number): Stored[] => {
    const log = logOf(topic)[partition];
    if (!log) throw new Error(`memory bus: no partition ${partition} of ${topic}`);
    return log;
  };

  const partitionOf = (key: string): number => createHash('md5').update(key).digest().readUInt32BE(0) % partitionCount;

  const store = (topic: string, message: Stored): void => {
    partitionLog(topic, partitionOf(message.key)).push(message);
  };

  const activeMembers = (group: Group, topic: string): Member[] => group.members.filter((m) => !m.stopped && m.topics.includes(topic));

  const hasBacklog = (): boolean => {
    for (const group of groups.values()) {
      for (const [slot, offset] of group.offsets) {
        const [topic, partition] = splitSlot(slot);
        if (offset < partitionLog(topic, partition).length && activeMembers(group, topic).length > 0) return true;
      }
    }
    return false;
  };

  const isIdle = (): boolean => !kickScheduled && running.size === 0 && !hasBacklog();

  const notifyIfIdle = (): void => {
    if (!isIdle()) return;
    for (const resolve of idleWaiters.splice(0)) resolve();
  };

  // Delivery starts on a later turn of the event loop, so `publish` never runs a handler itself.
  const scheduleKick = (): void => {
    if (kickScheduled) return;
    kickScheduled = true;
    setImmediate(() => {
      kickScheduled = false;
      kick();
      notifyIfIdle();
    });
  };

  const kick = (): void => {
    for (const [groupId, group] of groups) {
      for (const slot of group.offsets.keys()) {
        const [topic, partition] = splitSlot(slot);
        const worker = `${groupId}|${slot}`;
        if (running.has(worker)) continue;
        if ((group.offsets.get(slot) ?? 0) >= partitionLog(topic, partition).length) continue;
        if (activeMembers(group, topic).length === 0) continue;
        running.add(worker);
        void consume(group, topic, partition).finally(() => {
          running.delete(worker);
          notifyIfIdle();
        });
      }
    }
  };

  // One worker per group and partition: messages of one key are handled one after the other.
  const consume = async (group: Group, topic: string, partition: number): Promise<void> => {
    const slot = slotOf(topic, partition);
    // Messages of a batch that failed go one at a time up to here.
    let singleUntil = 0;
    for (;;) {
      const members = activeMembers(group, topic);
      const offset = group.offsets.get(slot) ?? 0;
      const log = partitionLog(topic, partition);
      const message = log[offset];
      const member = members[partition % members.length];
      if (!member || !message) return;
      const batch =
        member.handleBatch && offset >= singleUntil
          ? requestBatch(log.slice(offset, offset + member.maxBatch), (m) => m.value, member.maxBatch)
          : [];
      if (batch.length > 1) {
        const delivery = deliverBatch(member, topic, batch);
        member.inFlight.add(delivery);
        const outcome = await delivery.finally(() => member.inFlight.delete(delivery));
        if (outcome === 'done') group.offsets.set(slot, offset + batch.length);
        else if (outcome === 'failed') singleUntil = offset + batch.length;
        continue;
      }
      const delivery = deliver(member, topic, message);
      member.inFlight.add(delivery);
      const outcome = await delivery.finally(() => member.inFlight.delete(delivery));
      // A member stopped in the middle of retries leaves the message uncommitted, for the group's next member.
      if (outcome === 'abandoned') continue;
      group.offsets.set(slot, offset + 1);
    }
  };

  const deliver = async (member: Member, topic: string, message: Stored): Promise<'done' | 'abandoned'> => {
    let envelope: EventEnvelope;
    try {
      envelope = decodeEnvelope(message.value);
    } catch (error) {
      deadLetter(topic, message, error);
      return 'done';
    }
    let lastError: unknown;
    let waits = 0;
    for (let attempt = 1; attempt <= member.maxAttempts; attempt++) {
      if (member.stopped) return 'abandoned';
      try {
        await withRequestContext({ requestId: envelope.requestId ?? newRequestId() }, () => member.handle(envelope));
        return 'done';
      } catch (error) {
        if (isInfrastructureWait(error)) {
          // Not the event's fault (a pool's connection not free in time): tried again, not counted (decision 105).
          await waitForInfrastructure(topic, 1, ++waits, error);
          attempt--;
          continue;
        }
        lastError = error;
        logger?.warn({ topic, eventId: envelope.id, eventType: envelope.type, attempt, err: error }, 'event handler failed');
        if (attempt < member.maxAttempts) await sleep(retryDelayMs(attempt, retryBaseMs, 100));
      }
    }
    deadLetter(topic, message, lastError);
    return 'done';
  };

  /** `waited`: the run met an infrastructure wait and is to be tried again as a run; `failed`: one by one. */
  const deliverBatch = async (member: Member, topic: string, batch: EventEnvelope[]): Promise<'done' | 'waited' | 'failed'> => {
    const { handleBatch } = member;
    if (member.stopped || !handleBatch) return 'failed';
    for (let waits = 1; ; waits++) {
      try {
        await withRequestContext({ requestId: batchRequestId(batch) }, () => handleBatch(batch));
        return 'done';
      } catch (error) {
        if (!isInfrastructureWait(error)) {
          logger?.warn({ topic, events: batch.length, err: error }, 'event batch failed; its events are handled one by one');
          return 'failed';
        }
        await waitForInfrastructure(topic, batch.length, waits, error);
        // A member stopped meanwhile leaves the run to the group's next member.
        if (member.stopped) return 'waited';
      }
    }
  };

  const waitForInfrastructure = async (topic: string, events: number, waits: number, error: unknown): Promise<void> => {
    logger?.warn({ topic, events, waits, err: error }, 'event handler waited for the infrastructure: tried again, the attempt not counted');
    await sleep(retryDelayMs(waits, retryBaseMs * 20, 2000));
  };

  const deadLetter = (topic: string, message: Stored, error: unknown): void => {
    const dlq = deadLetterTopic(topic);
    logger?.error({ topic, dlq, key: message.key, err: error }, 'event sent to the dead-letter topic');
    store(dlq, { ...message, headers: { ...message.headers, [ERROR_HEADER]: errorText(error) } });
    scheduleKick();
  };

  const assertOpen = (): void => {
    if (closed) throw new Error('event bus: closed');
  };

  const publishEncoded = async (messages: readonly EncodedEvent[]): Promise<void> => {
    assertOpen();
    for (const { topic, key, value, headers } of messages) store(topic, { key, value, headers });
    if (messages.length > 0) scheduleKick();
  };

  const bus: MemoryBus = {
    kind: 'memory',

    // One path: an envelope is encoded as Kafka's bus encodes it, a raw value is one encoded message.
    publish: (events) => publishEncoded(events.map(encodedEvent)),
    publishEncoded,
    publishRaw: (topic, key, value, headers = {}) => publishEncoded([{ topic, key, value, headers }]),

    messages: (topic) => logOf(topic).flat(),

    async subscribe(options: SubscribeOptions): Promise<Subscription> {
      assertOpen();
      let group = groups.get(options.groupId);
      if (!group) {
        group = { offsets: new Map(), members: [] };
        groups.set(options.groupId, group);
      }
      const fromBeginning = options.fromBeginning ?? true;
      for (const topic of options.topics) {
        logOf(topic).forEach((log, partition) => {
          const slot = slotOf(topic, partition);
          // Like a Kafka group without a committed offset: oldest retained, or only what comes next.
          if (!group.offsets.has(slot)) group.offsets.set(slot, fromBeginning ? 0 : log.length);
        });
      }
      const member: Member = {
        topics: [...options.topics],
        handle: options.handle,
        handleBatch: options.handleBatch,
        maxBatch: Math.max(1, options.maxBatch ?? DEFAULT_MAX_BATCH),
        maxAttempts: Math.max(1, options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS),
        stopped: false,
        inFlight: new Set(),
      };
      group.members.push(member);
      scheduleKick();
      const owner = group;
      let stopped: Promise<void> | undefined;
      return {
        stop: () =>
          (stopped ??= (async () => {
            member.stopped = true;
            owner.members = owner.members.filter((m) => m !== member);
            await Promise.allSettled([...member.inFlight]);
            // The partitions it held go on with the group's other members.
            scheduleKick();
          })()),
      };
    },

    async ping() {
      assertOpen();
    },

    async close() {
      if (closed) return;
      closed = true;
      const members = [...groups.values()].flatMap((g) => g.members);
      for (const m of members) m.stopped = true;
      for (const g of groups.values()) g.members = [];
      await Promise.allSettled(members.flatMap((m) => [...m.inFlight]));
      notifyIfIdle();
    },

    async drain() {
      while (!isIdle()) await new Promise<void>((resolve) => idleWaiters.push(resolve));
    },
  };
  return bus;
}

const slotOf = (topic: string, partition: number): string => `${topic}#${partition}`;

function splitSlot(slot: string): [string, number] {
  const at = slot.lastIndexOf('#');
  return [slot.slice(0, at), Number(slot.slice(at + 1))];
}
