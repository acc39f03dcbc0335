import { z } from 'zod';

/** Raised when the environment does not fit a service's schema; its message is one line naming the variable. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

const describe = (value: unknown): string => (value === undefined ? 'it is not set' : `got ${JSON.stringify(value)}`);

/**
 * Parses the environment once at start-up. A missing or malformed variable becomes a ConfigError
 * such as `config: DATABASE_URL must be a postgres://, postgresql:// or pglite:// URL (got "foo")`.
 */
export function loadConfig<S extends z.ZodObject>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const name = issue.path.map(String).join('.');
    return `${name} ${issue.message} (${describe(env[name])})`;
  });
  throw new ConfigError(`config: ${problems.join('; ')}`);
}

const urlWithScheme = (schemes: string[], what: string) =>
  z.string().refine((v) => schemes.some((s) => v.startsWith(`${s}://`)), { message: `must be ${what}` });

/** Shared variables; each service composes its schema from these and its own. */
export const env = {
  port: (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** `postgres://…` for Postgres, `pglite://./data/pg` (a folder) or `pglite://memory` for the embedded engine. */
  databaseUrl: urlWithScheme(['postgres', 'postgresql', 'pglite'], 'a postgres://, postgresql:// or pglite:// URL'),
  /** `redis://…` or `memory` for the in-memory session store. */
  redisUrl: z.string().refine((v) => v === 'memory' || /^rediss?:\/\//.test(v), { message: 'must be a redis:// URL or "memory"' }),
  /** Comma-separated host:port list, or `memory` for the in-memory bus. */
  kafkaBrokers: z.string().refine((v) => v === 'memory' || v.split(',').every((b) => /^[\w.-]+:\d+$/.test(b.trim())), {
    message: 'must be a comma-separated list of host:port or "memory"',
  }),
  /** Put before a service's consumer groups: a second instance on a shared Kafka (a test, a benchmark) takes no events from the first. */
  kafkaGroupPrefix: z
    .string()
    .regex(/^[A-Za-z0-9._-]*$/, 'letters, digits, . _ -')
    .default(''),
  /**
   * KAFKA_NAMESPACE: put with a dot before every topic and consumer group of the process on Kafka, so runs
   * sharing one broker (benchmarks, e2e beside a running stack, CI) do not see each other's events.
   */
  kafkaNamespace: z
    .string()
    .regex(/^([A-Za-z0-9_-][A-Za-z0-9._-]{0,99})?$/, 'at most 100 letters, digits, . _ -, not starting with .')
    .default(''),
  /** `http(s)://…` of Meilisearch, or `embedded`. */
  meiliUrl: z.string().refine((v) => v === 'embedded' || /^https?:\/\//.test(v), { message: 'must be an http(s):// URL or "embedded"' }),
  url: z.string().url(),
  /** DB_ACQUIRE_TIMEOUT_MS: how long a Postgres query waits for a connection of the pool (decision 98). */
  dbAcquireTimeoutMs: z.coerce.number().int().min(100).max(600_000).default(5000),
  /**
   * DB_POOL_MAX: at most this many Postgres connections a process holds, knex's and `Db.query`'s together
   * (decision 90); PGlite has one whatever it says. Each replica takes this many of Postgres's `max_connections`.
   */
  dbPoolMax: z.coerce.number().int().min(1).max(1000).default(10),
  optionalString: z.string().optional(),
  /** `true` or `1` on, `false`, `0` or empty off. */
  flag: (fallback: boolean) =>
    z
      .enum(['true', 'false', '1', '0', ''])
      .default(fallback ? 'true' : 'false')
      .transform((v) => v === 'true' || v === '1'),
};

/** PORT, HOST, REUSE_PORT and LOG_LEVEL: what every service that serves HTTP reads. */
export const httpServiceEnv = (defaultPort: number) => ({
  PORT: env.port(defaultPort),
  HOST: z.string().default('0.0.0.0'),
  /**
   * Listen with SO_REUSEPORT (decision 86): replicas of one service on one host share its port and the kernel
   * spreads their connections, as a Service spreads them over pods (the benches and e2e suites run replicas so).
   */
  REUSE_PORT: env.flag(false),
  LOG_LEVEL: env.logLevel,
});

/**
 * KAFKA_NAMESPACE, KAFKA_GROUP_PREFIX, KAFKA_HANDLER_TIMEOUT_MS and KAFKA_HANDLER_MAX_TIMEOUTS: what every service on
 * the event bus reads beside KAFKA_BROKERS, passed to `createEventBus` as `namespace`, `groupPrefix`,
 * `handlerTimeoutMs` and `maxHandlerTimeouts`.
 */
export const kafkaNamingEnv = () => ({
  KAFKA_NAMESPACE: env.kafkaNamespace,
  KAFKA_GROUP_PREFIX: env.kafkaGroupPrefix,
  /** How long a consumer's handler may run before its consumer gives its partitions up (decision 76). */
  KAFKA_HANDLER_TIMEOUT_MS: z.coerce.number().int().min(1000).max(3_600_000).default(300_000),
  /** How many time-outs of one event's handler before the event is dead-lettered (decision 85). */
  KAFKA_HANDLER_MAX_TIMEOUTS: z.coerce.number().int().min(1).max(100).default(3),
});

/** DATABASE_URL, DATABASE_SCHEMA, DB_POOL_MAX and DB_ACQUIRE_TIMEOUT_MS: what every service that owns tables reads. */
export const databaseEnv = (defaultSchema: string) => ({
  DATABASE_URL: env.databaseUrl,
  DB_POOL_MAX: env.dbPoolMax,
  DB_ACQUIRE_TIMEOUT_MS: env.dbAcquireTimeoutMs,
  DATABASE_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]*$/, 'must be a lower-case SQL identifier')
    .default(defaultSchema),
});

const DAY_MS = 24 * 3600 * 1000;
/** Days in milliseconds, for retention periods read in days. */
export const daysToMs = (value: number): number => value * DAY_MS;
const days = (fallback: number, min: number) => z.coerce.number().min(min).default(fallback);

/**
 * Retention of the outbox and consumer dedupe tables: what every service with an outbox reads (see
 * docs/operations.md). Unsent outbox rows are never deleted, whatever these say.
 */
export const retentionEnv = () => ({
  /** Sent outbox rows: kept only to look into; Kafka holds what was published. */
  OUTBOX_RETENTION_DAYS: days(7, 0.01),
  /**
   * Dedupe records must outlive every redelivery: a consumer group whose offsets expired re-reads a
   * topic from the oldest message Kafka kept (7 days by default), so keep them longer than that.
   */
  PROCESSED_EVENTS_RETENTION_DAYS: days(14, 1),
  RETENTION_INTERVAL_SECONDS: z.coerce.number().int().min(1).default(3600),
  RETENTION_BATCH_SIZE: z.coerce.number().int().min(1).max(50_000).default(1000),
});

/**
 * OUTBOX_POLL_MS: how often a service's outbox relay looks for rows nobody told it about (rows written by
 * another replica, or left pending by a failed publish). A write through `enqueue` tells this process's
 * relay when its transaction commits, so this is a safety net, not the delivery delay (decision 66).
 */
export const outboxEnv = () => ({
  OUTBOX_POLL_MS: z.coerce.number().int().min(10).max(600_000).default(1000),
});

/** The backoffice's record of ERP batches: kept past Kafka's retention, to rebuild `backoffice.upsert.v1` from. */
export const receivedUpsertsRetentionEnv = () => ({
  RECEIVED_UPSERTS_RETENTION_DAYS: days(30, 1),
});

export interface RetentionConfig {
  OUTBOX_RETENTION_DAYS: number;
  PROCESSED_EVENTS_RETENTION_DAYS: number;
  RETENTION_INTERVAL_SECONDS: number;
  RETENTION_BATCH_SIZE: number;
}

/** The retention pruner's settings, in milliseconds, from `retentionEnv`'s variables. */
export function retentionSettings(config: RetentionConfig) {
  return {
    outboxRetentionMs: daysToMs(config.OUTBOX_RETENTION_DAYS),
    processedEventsRetentionMs: daysToMs(config.PROCESSED_EVENTS_RETENTION_DAYS),
    intervalMs: config.RETENTION_INTERVAL_SECONDS * 1000,
    batchSize: config.RETENTION_BATCH_SIZE,
  };
}
