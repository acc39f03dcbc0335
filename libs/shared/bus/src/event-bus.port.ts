import type { EventEnvelope } from '@commerce/shared-events';

export interface SubscribeOptions {
  /** Consumer group: each group gets every message once (at least once); members of one group share partitions. */
  groupId: string;
  topics: string[];
  /**
   * Called once per message, in key order. Resolving commits the message; throwing retries it
   * (`maxAttempts`, default 5, with backoff) and then sends it to the dead-letter topic `<topic>.dlq`.
   */
  handle(event: EventEnvelope): Promise<void>;
  /**
   * Optional: called instead of `handle` with consecutive messages of one partition that carry one
   * request id (the entities of one SOAP batch), at most `maxBatch` (default 1000) at a time, when there
   * are two or more. Resolving commits them all. Throwing falls back to `handle` for each of them, with
   * its retries and dead-lettering, so a bad message costs only itself.
   */
  handleBatch?(events: EventEnvelope[]): Promise<void>;
  maxBatch?: number;
  /**
   * Kafka only (the memory bus hands nothing over late, so it has no backlog to speak of): with `handleBatch`,
   * consecutive messages of a partition are handed over together whatever their request ids
   * (still at most `maxBatch`). For an idempotent consumer whose cost is per run, not per event: a backlog of many
   * small requests (a consumer catching up after a Kafka outage, one SOAP call a request) is applied in a few runs
   * instead of one a request (decision 140). The batch's request id is its first event's.
   */
  batchAcrossRequests?: boolean;
  maxAttempts?: number;
  /** Start from the oldest retained message when the group has no committed offset (default true). */
  fromBeginning?: boolean;
  /**
   * Kafka only (the memory bus ignores it): bytes of a partition one fetch may bring (default 1 MB,
   * kafkajs's); a whole fetch at most max(10 MB, four partitions' worth). A subscription whose runs are large (the
   * catalog's SOAP upserts) asks for more, so a batch is not cut into many runs (decision 75).
   */
  maxBytesPerPartition?: number;
  /**
   * Kafka only (the memory bus hands each event over at once): how long the broker may hold a fetch to gather
   * events while fewer than 64 kB wait (default 0: a fetch answers at its first event; at most 2000). For a consumer
   * nobody waits on event by event (the SOAP change feed, the saga's fallback): under load one fetch, and one commit
   * a partition, for many events instead of one each; each event waits up to this long (decision 175).
   */
  gatherMs?: number;
  /**
   * Kafka only (the memory bus ignores it): how long the broker waits for a heartbeat before it evicts the
   * member (default 10 000 ms; the broker's floor is 6 000). Heartbeats go on while a handler runs, so a long
   * handler does not need a longer session; a shorter one replaces a dead member sooner (decision 75).
   */
  sessionTimeout?: number;
  /**
   * Kafka only (the memory bus ignores it): how long one run of `handle` or `handleBatch` may take (default
   * the bus's, KAFKA_HANDLER_TIMEOUT_MS, 300 000 ms). Past it the handler is given up (its result, should it
   * ever come, is dropped and nothing is committed), the consumer leaves its group so the partitions go to
   * another member, and a new consumer joins: the event is handled again (at-least-once; `consumeOnce`
   * dedupes). Heartbeats keep a running handler's membership (decision 75), so without this limit a hung
   * one would hold its partitions for good (decision 76).
   */
  handlerTimeoutMs?: number;
  /**
   * Kafka only: after how many time-outs of one event (topic, partition, offset) its handler is given up for
   * good: the event goes to the dead-letter topic, with the reason in `x-error`, and the partition moves on
   * (default the bus's, KAFKA_HANDLER_MAX_TIMEOUTS, 3). Before that, each time-out replaces the consumer, with
   * a growing pause between back-to-back ones; a `handleBatch` run that timed out is handled one by one next
   * time, so the event that hangs is counted on its own (decision 85).
   */
  maxHandlerTimeouts?: number;
}

export interface Subscription {
  stop(): Promise<void>;
}

/** The event-bus port: Kafka (kafkajs) in production, in memory for `npm start` and unit tests. */
export interface EventBus {
  readonly kind: 'kafka' | 'memory';
  /** Resolves once the broker has acknowledged every message. */
  publish(events: EventEnvelope[]): Promise<void>;
  /**
   * Optional: publishes envelopes already serialised (the outbox relay's rows: the text `encodeEnvelope`
   * made when they were written, with their headers), sent as they are, in order per topic, without being
   * parsed and serialised again (decision 99). Resolves once the broker has acknowledged every message.
   */
  publishEncoded?(messages: readonly EncodedEvent[]): Promise<void>;
  subscribe(options: SubscribeOptions): Promise<Subscription>;
  /** Readiness: resolves when the broker answers, rejects otherwise. */
  ping(): Promise<void>;
  /** Stops every subscription and disconnects. */
  close(): Promise<void>;
}

/** An envelope as it goes on the wire: its topic, key, JSON text and headers (`headersOf` the envelope). */
export interface EncodedEvent {
  topic: string;
  key: string;
  value: string;
  headers: Record<string, string>;
}

export const deadLetterTopic = (topic: string): string => `${topic}.dlq`;
