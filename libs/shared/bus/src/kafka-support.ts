import { logLevel, type Admin, type IHeaders, type LogEntry } from 'kafkajs';
import type { Logger } from '@commerce/shared-logging';
import { sleep } from './envelope-codec';

// The Kafka bus's helpers (kafka-bus.ts): topics created and awaited, headers read, kafkajs's log lines
// through pino, an error's cause in one word, a promise given a time limit.

const TOPIC_DEFAULTS = { replicationFactor: 1 };

export async function createTopics(admin: Admin, topics: string[], numPartitions: number): Promise<void> {
  // Asking to create a topic that exists is an error response, which kafkajs logs at error level
  // before we can ignore it: at every restart, for every topic. So create only the missing ones.
  const existing = new Set(await admin.listTopics());
  const missing = topics.filter((topic) => !existing.has(topic));
  if (missing.length === 0) return;
  try {
    await admin.createTopics({ waitForLeaders: true, topics: missing.map((topic) => ({ topic, numPartitions, ...TOPIC_DEFAULTS })) });
  } catch (error) {
    const type = (error as { type?: string })?.type;
    // Another process created one of them in the meantime; or the topic is created but the broker's
    // metadata does not list it yet, which kafkajs's wait for leaders does not retry (seen when the
    // services of a new KAFKA_NAMESPACE start at once on a loaded machine).
    if (
      type !== 'TOPIC_ALREADY_EXISTS' &&
      type !== 'UNKNOWN_TOPIC_OR_PARTITION' &&
      !String((error as Error)?.message).includes('already exists')
    )
      throw error;
    await untilListed(admin, missing);
  }
}

/** Waits (up to ~10 s) until the broker's metadata lists the topics with their leaders. */
export async function untilListed(admin: Admin, topics: string[]): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      const { topics: listed } = await admin.fetchTopicMetadata({ topics });
      if (listed.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0))) return;
    } catch (error) {
      const type = (error as { type?: string })?.type;
      if ((type !== 'UNKNOWN_TOPIC_OR_PARTITION' && type !== 'LEADER_NOT_AVAILABLE') || attempt >= 40) throw error;
    }
    if (attempt >= 40) return;
    await sleep(250);
  }
}

/** Whether `error` or one of its causes (kafkajs wraps what a handler threw) is a `type`. */
export function causedBy(error: unknown, type: new (...args: never[]) => Error): boolean {
  for (let e = error, depth = 0; e && depth < 5; depth++, e = (e as { cause?: unknown }).cause) if (e instanceof type) return true;
  return false;
}

export function stringHeaders(headers: IHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value === undefined) continue;
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) out[name] = first.toString();
  }
  return out;
}

// Said at every start about a choice we made: retries are bounded so that a dead broker fails a
// publish (the outbox row stays unsent and is sent again) instead of hanging it, and consumers dedupe
// by event id, so the duplicate a bounded retry can cause is harmless.
const EXPECTED_WARNINGS = new Set(['Limiting retries for the idempotent producer may invalidate EoS guarantees']);
/**
 * kafkajs says this at error level before each retry of a send that met a retriable error (stale metadata, a
 * partition whose leader is being elected, as on a topic made moments before): it refreshes its metadata and sends
 * again. Only a send whose retries all fail is an error, and that one rejects the publish, whose caller says so.
 */
const RETRIED_SEND = 'Failed to send messages: ';

/** kafkajs logs through pino, so every line stays JSON. */
export function pinoLogCreator(logger: Logger) {
  return () =>
    ({ namespace, level, log }: LogEntry): void => {
      const { message, timestamp: _timestamp, logger: _logger, ...extra } = log;
      const fields = { component: 'kafkajs', namespace, ...extra };
      if (EXPECTED_WARNINGS.has(message) || message.startsWith(RETRIED_SEND)) logger.debug(fields, message);
      else if (level === logLevel.ERROR || level === logLevel.NOTHING) logger.error(fields, message);
      else if (level === logLevel.WARN) logger.warn(fields, message);
      else if (level === logLevel.INFO) logger.info(fields, message);
      else logger.debug(fields, message);
    };
}

export function describeCause(error: unknown): string {
  let e = error as { code?: unknown; message?: unknown; originalError?: unknown; cause?: unknown } | undefined;
  let message: string | undefined;
  for (let depth = 0; e && depth < 5; depth++) {
    if (typeof e.code === 'string' && /^E[A-Z]+$/.test(e.code)) return e.code;
    const text = typeof e.message === 'string' ? e.message : undefined;
    const code = text?.match(/\b(E[A-Z]{4,})\b/)?.[1];
    if (code) return code;
    message ??= text;
    e = (e.originalError ?? e.cause) as typeof e;
  }
  return (message ?? String(error)).split('\n')[0] ?? '';
}

export function withTimeout<T>(promise: Promise<T>, ms: number, reason: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(reason)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
