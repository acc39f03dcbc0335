import {
  Kafka,
  Partitioners,
  logLevel,
  type Consumer,
  type ConsumerConfig,
  type IHeaders,
  type KafkaMessage,
  type Producer,
} from 'kafkajs';
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
import { HandlerHangs, eventKey } from './kafka-hangs';
import { createTopics, causedBy, stringHeaders, pinoLogCreator, describeCause, withTimeout } from './kafka-support';
import { HandlerTimeoutError, withHeartbeats, type Heartbeats } from './kafka-heartbeats';
import { kafkaRequestListener } from './kafka-instruments';
import { OffsetCommits, partitionKey, type PartitionOffset } from './kafka-commits';

/** Kafka does not answer at start-up; one line, safe to log. */
export class BusUnavailableError extends Error {
  constructor(
    readonly brokers: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`event bus: cannot reach Kafka at ${brokers} (${reason})`, options);
    this.name = 'BusUnavailableError';
  }
}

export interface KafkaBusOptions {
  clientId: string;
  logger: Logger;
  /** Partitions of a topic this bus creates (default 3). */
  partitions?: number;
  /** How long to wait for the broker at creation (default 5000 ms). */
  connectTimeoutMs?: number;
  /** A subscription's `handlerTimeoutMs` when it names none (default 300 000 ms; decision 76). */
  handlerTimeoutMs?: number;
  /** A subscription's `maxHandlerTimeouts` when it names none (default 3; decision 85). */
  maxHandlerTimeouts?: number;
}

export interface KafkaBus extends EventBus {
  readonly kind: 'kafka';
  /** Sends a value as is, bypassing the envelope (tests of poison messages, replays from a DLQ). */
  publishRaw(topic: string, key: string, value: string, headers?: Record<string, string>): Promise<void>;
}

/** A consumer's defaults (SubscribeOptions' sessionTimeout and maxBytesPerPartition). */
const DEFAULT_SESSION_TIMEOUT_MS = 10_000;
/** How long after kafkajs gave a consumer up (an error it does not retry) a new one joins in its place. */
const CRASH_RESTART_DELAY_MS = 1000;
const DEFAULT_MAX_BYTES_PER_PARTITION = 1024 * 1024;
/** Well above the longest legitimate run (the catalog's merged runs of SOAP batches take seconds). */
const DEFAULT_HANDLER_TIMEOUT_MS = 300_000;
/** Time-outs of one event before it is dead-lettered: a hang that repeats is the event's, not the moment's. */
const DEFAULT_MAX_HANDLER_TIMEOUTS = 3;
/** kafkajs's own maxBytes: a fetch as a whole brings at most this, or four partitions' worth if more. */
const MIN_MAX_BYTES = 10 * 1024 * 1024;
/** Back-off of a handler that waited for the infrastructure (decision 105): its own wait (a pool's 5 s) comes on top. */
const INFRASTRUCTURE_RETRY_BASE_MS = 100;
const INFRASTRUCTURE_RETRY_MAX_MS = 2000;
/**
 * How long an idle fetch waits on the broker for a first event (a fetch that does not gather answers at it): an idle
 * consumer's poll, and its heartbeat (sent between fetches), every 2 s (decision 181), within a third of its session.
 */
const IDLE_FETCH_WAIT_MS = 2000;
/** A gathering fetch (SubscribeOptions' gatherMs) answers once this much waits, or at its time. */
const GATHER_BYTES = 64 * 1024;
/** Well within the session (heartbeats go between fetches). */
const MAX_GATHER_MS = 2000;
/** A long fetched batch commits what it handled at least this often (decision 175); a short one once, at its end. */
const COMMIT_INTERVAL_MS = 1000;
/**
 * How long a stopping subscription waits for its running batches to end, to commit what they handled before it
 * leaves its group (kafkajs drops a commit once its consumer stops): within the shutdown's 20 s grace, after its
 * requests' 10 s. What a handler still running then handles is redelivered.
 */
const STOP_WAIT_MS = 5000;
/** Bytes of message values per produce request (see publish). */
const PUBLISH_REQUEST_BYTES = 512 * 1024;

/** Kafka through kafkajs; the broker is asked at creation, so a wrong KAFKA_BROKERS stops start-up at once. */
export async function createKafkaBus(brokers: string[], options: KafkaBusOptions): Promise<KafkaBus> {
  const { logger } = options;
  const defaultHandlerTimeoutMs = options.handlerTimeoutMs ?? DEFAULT_HANDLER_TIMEOUT_MS;
  const defaultMaxHandlerTimeouts = options.maxHandlerTimeouts ?? DEFAULT_MAX_HANDLER_TIMEOUTS;
  const partitions = options.partitions ?? 3;
  const kafka = new Kafka({
    clientId: options.clientId,
    brokers,
    connectionTimeout: 3000,
    requestTimeout: 10_000,
    logLevel: logLevel.WARN,
    logCreator: pinoLogCreator(logger),
    retry: { initialRetryTime: 100, maxRetryTime: 2000, retries: 8 },
  });

  const brokerList = brokers.join(',');
  // A probe client with few, short retries: an unreachable broker must fail start-up in seconds, not
  // hang through the working client's retries; its failure is told by BusUnavailableError, not logs.
  const probe = new Kafka({
    clientId: options.clientId,
    brokers,
    connectionTimeout: 3000,
    logLevel: logLevel.NOTHING,
    retry: { initialRetryTime: 100, maxRetryTime: 500, retries: 2 },
  }).admin();
  try {
    await withTimeout(probe.connect(), options.connectTimeoutMs ?? 5000, 'no answer in time');
  } catch (error) {
    throw new BusUnavailableError(brokerList, describeCause(error), { cause: error });
  } finally {
    await probe.disconnect().catch(() => undefined);
  }
  const admin = kafka.admin();
  admin.on(admin.events.REQUEST, kafkaRequestListener);
  await admin.connect();

  // Idempotent, acks from all in-sync replicas, one request in flight: no duplicates, order kept per key.
  const producer: Producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  producer.on(producer.events.REQUEST, kafkaRequestListener);
  let producerReady: Promise<void> | undefined;
  const connectedProducer = async (): Promise<Producer> => {
    producerReady ??= producer.connect().catch((error: unknown) => {
      producerReady = undefined;
      throw error;
    });
    await producerReady;
    return producer;
  };

  const topicsReady = new Map<string, Promise<void>>();
  const ensureTopics = async (topics: string[]): Promise<void> => {
    const missing = [...new Set(topics)].filter((t) => !topicsReady.has(t));
    if (missing.length > 0) {
      const created = createTopics(admin, missing, partitions);
      for (const t of missing) {
        topicsReady.set(
          t,
          created.catch((error: unknown) => {
            topicsReady.delete(t);
            throw error;
          }),
        );
      }
    }
    await Promise.all(topics.map((t) => topicsReady.get(t)));
  };

  const sendRaw = async (topic: string, messages: Array<{ key: string; value: string; headers: IHeaders }>): Promise<void> => {
    await ensureTopics([topic]);
    await (await connectedProducer()).send({ topic, acks: -1, messages });
  };

  const subscriptions = new Set<Subscription>();
  let closed = false;

  /**
   * Sends serialised envelopes grouped by topic, each topic's in order. One request per PUBLISH_REQUEST_BYTES:
   * a partition's messages of a request are one record batch, which the broker refuses past its
   * message.max.bytes (1 MB by default); the outbox relay hands over hundreds of envelopes of a few kB at
   * once. In turn, so each key keeps its order.
   */
  const sendEncoded = async (messages: readonly EncodedEvent[]): Promise<void> => {
    if (closed) throw new Error('event bus: closed');
    if (messages.length === 0) return;
    const byTopic = new Map<string, EncodedEvent[]>();
    for (const message of messages) {
      const list = byTopic.get(message.topic);
      if (list) list.push(message);
      else byTopic.set(message.topic, [message]);
    }
    await ensureTopics([...byTopic.keys()]);
    const producer = await connectedProducer();
    let request: Array<{ topic: string; messages: Array<{ key: string; value: Buffer; headers: IHeaders }> }> = [];
    let bytes = 0;
    const send = async () => {
      if (request.length > 0) await producer.sendBatch({ acks: -1, topicMessages: request });
      request = [];
      bytes = 0;
    };
    for (const [topic, list] of byTopic) {
      for (const m of list) {
        const value = Buffer.from(m.value, 'utf8');
        if (bytes > 0 && bytes + value.length > PUBLISH_REQUEST_BYTES) await send();
        let entry = request.at(-1);
        if (entry?.topic !== topic) request.push((entry = { topic, messages: [] }));
        entry.messages.push({ key: m.key, value, headers: m.headers });
        bytes += value.length + m.key.length;
      }
    }
    await send();
  };

  const subscribe = async (options: SubscribeOptions): Promise<Subscription> => {
    if (closed) throw new Error('event bus: closed');
    const maxAttempts = Math.max(1, options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS);
    await ensureTopics([...options.topics, ...options.topics.map(deadLetterTopic)]);
    const sessionTimeout = options.sessionTimeout ?? DEFAULT_SESSION_TIMEOUT_MS;
    // Due every second (kafkajs's heartbeat() sends only when one is due), a third of a shorter session.
    const heartbeatInterval = Math.min(1000, Math.floor(sessionTimeout / 3));
    const maxBytesPerPartition = options.maxBytesPerPartition ?? DEFAULT_MAX_BYTES_PER_PARTITION;
    const handlerTimeoutMs = options.handlerTimeoutMs ?? defaultHandlerTimeoutMs;
    const gatherMs = Math.min(Math.max(0, options.gatherMs ?? 0), MAX_GATHER_MS);
    const hangs = new HandlerHangs(options.maxHandlerTimeouts ?? defaultMaxHandlerTimeouts);
    const consumerConfig: ConsumerConfig = {
      groupId: options.groupId,
      // Short session: a stopped member is replaced fast; a running handler heartbeats (withHeartbeats), so a
      // long one keeps its membership. A fetch answers as soon as an event arrives (minBytes 1), so the wait
      // only bounds idle polls: 100 ms made every idle consumer of seven services poll ten times a second, 500 ms
      // twice (decision 181). It also delays a stopping consumer and its notice of a rebalance by as much.
      // A subscription that gathers (gatherMs) has the broker hold a fetch until GATHER_BYTES or its time.
      sessionTimeout,
      heartbeatInterval,
      rebalanceTimeout: Math.max(10_000, sessionTimeout),
      maxWaitTimeInMs: gatherMs > 0 ? gatherMs : Math.min(IDLE_FETCH_WAIT_MS, Math.floor(sessionTimeout / 3)),
      minBytes: gatherMs > 0 ? GATHER_BYTES : 1,
      // kafkajs's 1 MB of a partition a fetch unless the subscription asks for more: the catalog's SOAP
      // upserts ask for 4 MB, a batch's ~1.5 MB share of a partition in one run (decisions 64 and 75).
      maxBytesPerPartition,
      maxBytes: Math.max(MIN_MAX_BYTES, 4 * maxBytesPerPartition),
      allowAutoTopicCreation: false,
    };
    // Started again after kafkajs gave it up (see restart): the same consumer, so that it rejoins as the member it was.
    const consumer: Consumer = kafka.consumer(consumerConfig);
    consumer.on(consumer.events.REQUEST, kafkaRequestListener);
    let stopping = false;
    // A restart's pause, cut short when the subscription stops.
    let wakeUp = (): void => undefined;
    const pause = (ms: number) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });

    const deadLetter = async (topic: string, message: KafkaMessage, error: unknown): Promise<void> => {
      const dlq = deadLetterTopic(topic);
      logger.error({ topic, dlq, offset: message.offset, err: error }, 'event sent to the dead-letter topic');
      await sendRaw(dlq, [
        {
          key: message.key?.toString('utf8') ?? '',
          value: message.value?.toString('utf8') ?? '',
          headers: { ...stringHeaders(message.headers), [ERROR_HEADER]: errorText(error), 'x-original-topic': topic },
        },
      ]);
    };

    const joined = new Promise<void>((resolve) => {
      const off = consumer.on(consumer.events.GROUP_JOIN, () => {
        off();
        resolve();
      });
    });
    // Commits in turn, none behind the offset last sent for its partition (kafkajs runs a fetcher a broker side by side).
    const commits = new OffsetCommits((offsets) => consumer.commitOffsets(offsets));
    // Every join told (a rebalance, a rejoin after an outage): how long it took says whether the group waited for a member.
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      commits.reset();
      logger.info(
        { groupId: options.groupId, memberId: payload.memberId, durationMs: payload.duration, partitions: payload.memberAssignment },
        'event bus: the consumer joined its group',
      );
    });

    /**
     * One offset commit a fetch, not one an event or run (decision 175): the batches of a fetch (one a partition, run
     * side by side) leave what they handled here, and the last of them to end commits it all in one request. A
     * partition's entry goes once taken for a commit, or once a later commit of the partition covers it.
     */
    const fetched = new Map<string, PartitionOffset>();
    let batchesRunning = 0;
    /** Told when no batch runs any more and the last one's commit settled (a stopping subscription waits for it). */
    const batchesEndedListeners: Array<() => void> = [];
    const batchesEnded = (): Promise<void> =>
      batchesRunning === 0 ? commits.settled() : new Promise((resolve) => batchesEndedListeners.push(resolve));
    const commitFetched = async (): Promise<void> => {
      if (fetched.size === 0) return;
      const offsets = [...fetched.values()];
      fetched.clear();
      await commits.commit(offsets);
    };
    /**
     * What a fetched batch of one partition has handled (or dead-lettered) and not yet committed. It goes with the
     * fetch's commit when the batch ends; a batch that throws commits it at once, as far as it got, when the
     * membership still allows it; a long batch commits it at least every COMMIT_INTERVAL_MS.
     */
    const settledOffsets = (topic: string, partition: number, resolveOffset: (offset: string) => void) => {
      let pending: string | undefined;
      let committedAt = Date.now();
      const next = () => {
        const offset = pending === undefined ? undefined : (BigInt(pending) + 1n).toString();
        pending = undefined;
        return offset;
      };
      const commit = async () => {
        const offset = next();
        committedAt = Date.now();
        if (offset === undefined) return;
        // An earlier batch's offset of the partition, left for the fetch's commit, is behind this one.
        const left = fetched.get(partitionKey({ topic, partition }));
        if (left && BigInt(left.offset) <= BigInt(offset)) fetched.delete(partitionKey({ topic, partition }));
        await commits.commit([{ topic, partition, offset }]);
      };
      return {
        /** The event at `message`'s offset, and those before it, are done with. */
        settle: async (message: KafkaMessage): Promise<void> => {
          hangs.settled(topic, partition, message.offset);
          resolveOffset(message.offset);
          pending = message.offset;
          if (Date.now() - committedAt >= COMMIT_INTERVAL_MS) await commit();
        },
        /** The batch ended: its offset goes with the fetch's commit. */
        leave: () => {
          const offset = next();
          if (offset !== undefined) fetched.set(partitionKey({ topic, partition }), { topic, partition, offset });
        },
        /** The batch stopped on `error`: what it handled is committed if the broker still takes it; `error` goes on. */
        commitBefore: async (error: unknown): Promise<never> => {
          await commit().catch(() => undefined);
          throw error;
        },
      };
    };
    type Settled = ReturnType<typeof settledOffsets>;

    /** A handler's heartbeats (see withHeartbeats), none once the subscription stops; `limitMs` the handler's time limit. */
    const heartbeats = (heartbeat: () => Promise<void>, topic: string, partition: number, limitMs = handlerTimeoutMs): Heartbeats =>
      withHeartbeats(
        heartbeat,
        heartbeatInterval,
        () => stopping,
        (error) =>
          logger.warn({ topic, partition, groupId: options.groupId, err: error }, 'event bus: a heartbeat failed while a handler ran'),
        limitMs,
      );

    /**
     * A handler failed waiting for the infrastructure (a pool's connection, decision 105): not the event's fault,
     * so the attempt is not counted; the partition waits `waits`' back-off, keeping its membership, and the same
     * work is tried again. Throws when the membership was lost meanwhile (kafkajs rejoins).
     */
    const waitForInfrastructure = async (
      heartbeat: () => Promise<void>,
      at: { topic: string; partition: number; offset: string; events: number },
      waits: number,
      error: unknown,
    ): Promise<void> => {
      logger.warn(
        { ...at, groupId: options.groupId, waits, err: error },
        'event handler waited for the infrastructure: tried again, the attempt not counted',
      );
      const beats = heartbeats(heartbeat, at.topic, at.partition, Number.POSITIVE_INFINITY);
      await beats.during(() => sleep(retryDelayMs(waits, INFRASTRUCTURE_RETRY_BASE_MS, INFRASTRUCTURE_RETRY_MAX_MS)));
      beats.throwIfLost();
    };

    /** One message: retried, then dead-lettered; false when the member stops first (left uncommitted). */
    const handleMessage = async (
      topic: string,
      partition: number,
      message: KafkaMessage,
      heartbeat: () => Promise<void>,
      settled: Settled,
    ): Promise<boolean> => {
      if (stopping) return false;
      let envelope: EventEnvelope;
      try {
        envelope = decodeEnvelope(message.value?.toString('utf8'));
      } catch (error) {
        await deadLetter(topic, message, error);
        await settled.settle(message);
        return true;
      }
      let lastError: unknown;
      let waits = 0;
      for (let attempt = 1; attempt <= maxAttempts; attempt++) {
        // Not committed: whoever holds the partition next gets the message again.
        if (stopping) return false;
        const beats = heartbeats(heartbeat, topic, partition);
        try {
          await beats.during(() => withRequestContext({ requestId: envelope.requestId ?? newRequestId() }, () => options.handle(envelope)));
          // The broker takes the commit only from the group's current generation; a member asked to rejoin
          // (a heartbeat met REBALANCE_IN_PROGRESS) still holds its partitions until it does.
          await settled.settle(message);
        } catch (error) {
          // Timed out: the consumer is replaced (below, restart), unless this event's handler timed out as often
          // as allowed: then it is dead-lettered and the partition moves on (decision 85).
          if (error instanceof HandlerTimeoutError) {
            const { count, deadLetter: give } = hangs.timedOut(eventKey(topic, partition, message.offset));
            logger.error(
              { topic, partition, offset: message.offset, eventId: envelope.id, eventType: envelope.type, timeouts: count, err: error },
              give ? 'event handler timed out again: the event is dead-lettered' : 'event handler timed out',
            );
            if (give) {
              await deadLetter(topic, message, new HandlerTimeoutError(handlerTimeoutMs, count));
              await settled.settle(message);
              return true;
            }
          }
          // Membership lost or changing: no retry, no dead letter; kafkajs rejoins on the error, and whoever
          // holds the partition then gets the message again.
          beats.throwIfLost(error);
          if (isInfrastructureWait(error)) {
            await waitForInfrastructure(heartbeat, { topic, partition, offset: message.offset, events: 1 }, ++waits, error);
            attempt--;
            continue;
          }
          lastError = error;
          logger.warn(
            { topic, partition, offset: message.offset, eventId: envelope.id, eventType: envelope.type, attempt, err: error },
            'event handler failed',
          );
          if (attempt < maxAttempts) {
            await sleep(retryDelayMs(attempt, 50, 1000));
            await heartbeat();
          }
          continue;
        }
        beats.throwIfLost();
        return true;
      }
      await deadLetter(topic, message, lastError);
      await settled.settle(message);
      return true;
    };

    const { handleBatch } = options;
    const maxBatch = Math.max(1, options.maxBatch ?? DEFAULT_MAX_BATCH);
    /**
     * A handler timed out, or kafkajs gave the consumer up on an error it does not retry (a broker that went away
     * mid-rejoin: "Failed to find group coordinator"): kafkajs stopped the consumer (its partitions go to the other
     * members, or to the new one); it is started again, until it starts or the subscription stops. Without it a
     * consumer stayed stopped for good after a Kafka outage (decision 133). The same consumer, not a new one: one
     * that could not leave its group (the broker away) rejoins as the member it was (patched kafkajs), so the group
     * does not wait out the old member's session for a new one when the broker returns (decision 140); one that left
     * (a handler's time-out, the broker there) joins as a new member.
     */
    let restarting = Promise.resolve();
    const restart = async (cause: unknown): Promise<void> => {
      const timedOut = causedBy(cause, HandlerTimeoutError);
      if (timedOut) {
        // Back-to-back time-outs (no handler settled between them) wait longer and longer (decision 85).
        const delayMs = hangs.nextRestartDelayMs();
        logger.warn(
          { groupId: options.groupId, topics: options.topics, delayMs },
          'event bus: a handler timed out; the consumer joins the group again',
        );
        await pause(delayMs);
      } else {
        logger.warn(
          { groupId: options.groupId, topics: options.topics, err: cause, delayMs: CRASH_RESTART_DELAY_MS },
          'event bus: the consumer stopped on an error kafkajs does not retry; it joins the group again',
        );
        await pause(CRASH_RESTART_DELAY_MS);
      }
      for (let attempt = 1; !stopping; attempt++) {
        try {
          await start();
          return;
        } catch (error) {
          logger.error({ groupId: options.groupId, err: error }, 'event bus: the consumer did not start again');
          await consumer.disconnect().catch(() => undefined);
          // After a crash (a broker away), tried again every few seconds: it is back as soon as the broker is.
          await pause(retryDelayMs(attempt, 1000, timedOut ? 30_000 : CRASH_RESTART_DELAY_MS * 2));
        }
      }
    };
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (!stopping && !payload.restart) void restarting.then(() => (restarting = restart(payload.error)));
    });
    const start = async (): Promise<void> => {
      await consumer.connect();
      await consumer.subscribe({ topics: options.topics, fromBeginning: options.fromBeginning ?? true });
      await consume();
    };
    /** Runs of `handleBatch` from `i` on, then events one by one; false when the member stops first. */
    const handleRuns = async (
      { topic, partition, messages }: { topic: string; partition: number; messages: KafkaMessage[] },
      heartbeat: () => Promise<void>,
      isLive: () => boolean,
      settled: Settled,
    ): Promise<boolean> => {
      let waits = 0;
      for (let i = 0; i < messages.length;) {
        if (!isLive()) return false;
        const run = handleBatch
          ? requestBatch(messages.slice(i, i + maxBatch), (m) => m.value?.toString('utf8'), maxBatch, options.batchAcrossRequests)
          : [];
        const last = messages[i + run.length - 1];
        const first = eventKey(topic, partition, messages[i]?.offset ?? '');
        // A run that timed out before is handled one by one: the event that hangs is counted on its own.
        if (handleBatch && run.length > 1 && last && !hangs.takeTimedOutRun(first)) {
          const beats = heartbeats(heartbeat, topic, partition);
          let applied = false;
          try {
            await beats.during(() => withRequestContext({ requestId: batchRequestId(run) }, () => handleBatch(run)));
            await settled.settle(last);
            applied = true;
          } catch (error) {
            if (error instanceof HandlerTimeoutError) hangs.runTimedOut(first);
            // Not one by one once the membership is lost (or the run timed out: the consumer is
            // replaced): their commits would be refused as well.
            beats.throwIfLost(error);
            // Nor when the run waited for the infrastructure: the same run is tried again.
            if (isInfrastructureWait(error)) {
              const at = { topic, partition, offset: messages[i]?.offset ?? '', events: run.length };
              await waitForInfrastructure(heartbeat, at, ++waits, error);
              continue;
            }
            logger.warn({ topic, partition, events: run.length, err: error }, 'event batch failed; its events are handled one by one');
          }
          if (applied) {
            waits = 0;
            beats.throwIfLost();
            await heartbeat();
            i += run.length;
            continue;
          }
        }
        for (const message of messages.slice(i, i + Math.max(1, run.length))) {
          if (!(await handleMessage(topic, partition, message, heartbeat, settled))) return false;
          await heartbeat();
          i++;
        }
      }
      return true;
    };
    const consume = () =>
      consumer.run({
        autoCommit: false,
        partitionsConsumedConcurrently: partitions,
        eachBatchAutoResolve: false,
        eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
          const settled = settledOffsets(batch.topic, batch.partition, resolveOffset);
          const isLive = () => !stopping && isRunning() && !isStale();
          batchesRunning++;
          let ended = false;
          try {
            await handleRuns(batch, heartbeat, isLive, settled).catch(settled.commitBefore);
            settled.leave();
            ended = true;
          } finally {
            if (--batchesRunning === 0) {
              const committed = commitFetched();
              try {
                // After an error, that error goes on (kafkajs rejoins); the others' offsets are committed if they can be.
                await (ended ? committed : committed.catch(() => undefined));
              } finally {
                if (batchesRunning === 0) {
                  for (const tell of batchesEndedListeners.splice(0)) tell();
                }
              }
            }
          }
        },
      });

    await start();
    // Resolve once partitions are assigned, so that `fromBeginning: false` means "from now on".
    await withTimeout(joined, 20_000, 'no group join').catch(() =>
      logger.warn({ groupId: options.groupId }, 'event bus: consumer has not joined its group yet'),
    );

    let stopped: Promise<void> | undefined;
    const subscription: Subscription = {
      stop: () =>
        (stopped ??= (async () => {
          stopping = true;
          wakeUp();
          subscriptions.delete(subscription);
          await restarting;
          // kafkajs drops a commit once its consumer stops (disconnect stops it first), so the running batches end
          // first (handling nothing more) and what they handled is committed while the consumer still runs.
          await withTimeout(batchesEnded(), STOP_WAIT_MS, 'batches still running').catch(() =>
            logger.info(
              { groupId: options.groupId, waitedMs: STOP_WAIT_MS },
              'event bus: a handler still ran when its consumer stopped: what it handles is redelivered',
            ),
          );
          await commitFetched().catch(() => undefined);
          await consumer.disconnect();
        })()),
    };
    subscriptions.add(subscription);
    return subscription;
  };

  return {
    kind: 'kafka',

    publish: (events) => sendEncoded(events.map(encodedEvent)),

    publishEncoded: (messages) => sendEncoded(messages),

    publishRaw: (topic, key, value, headers = {}) => sendRaw(topic, [{ key, value, headers }]),

    subscribe,

    async ping() {
      await withTimeout(admin.describeCluster(), 5000, 'no answer in time');
    },

    async close() {
      if (closed) return;
      closed = true;
      await Promise.allSettled([...subscriptions].map((s) => s.stop()));
      if (producerReady) await producer.disconnect().catch(() => undefined);
      await admin.disconnect().catch(() => undefined);
    },
  };
}
