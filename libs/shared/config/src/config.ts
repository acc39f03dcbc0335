import { z } from 'zod';

/** Raised when the environment does not fit a service's schema; its message is one line naming the variable. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** An integer variable between `min` and `max` (inclusive), `fallback` when unset: the shape of every count, size and time-out setting. */
export const boundedInt = (min: number, max: number, fallback: number) => z.coerce.number().int().min(min).max(max).default(fallback);

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
  port: (fallback: number) => boundedInt(0, 65535, fallback),
  logLevel: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .describe(
      "`fatal` … `trace`, or `silent`. JSON lines on stdout; the lines of one turn of the event loop go out as one write at its end (at `info` the edge's access line a request costs a share of a write, not a write; decision 117).",
    ),
  /** `postgres://…` for Postgres, `pglite://./data/pg` (a folder) or `pglite://memory` for the embedded engine. */
  databaseUrl: urlWithScheme(['postgres', 'postgresql', 'pglite'], 'a postgres://, postgresql:// or pglite:// URL').describe(
    'Postgres (`postgres://user:pass@host:5432/db`), or the embedded engine: `pglite://memory` or `pglite://<folder>`.',
  ),
  /** `redis://…` or `memory` for the in-memory session store. */
  redisUrl: z
    .string()
    .refine((v) => v === 'memory' || /^rediss?:\/\//.test(v), { message: 'must be a redis:// URL or "memory"' })
    .describe('Redis of the checkout sessions and login limits (`redis://…`, `rediss://…`), or `memory` (one process only).'),
  /** Comma-separated host:port list, or `memory` for the in-memory bus. */
  kafkaBrokers: z
    .string()
    .refine((v) => v === 'memory' || v.split(',').every((b) => /^[\w.-]+:\d+$/.test(b.trim())), {
      message: 'must be a comma-separated list of host:port or "memory"',
    })
    .describe('Kafka brokers, comma-separated `host:port`, or `memory` for an in-process bus (one process only).'),
  /** Put before a service's consumer groups: a second instance on a shared Kafka (a test, a benchmark) takes no events from the first. */
  kafkaGroupPrefix: z
    .string()
    .regex(/^[A-Za-z0-9._-]*$/, 'letters, digits, . _ -')
    .default('')
    .describe(
      "Put before the service's consumer groups (after the namespace; e.g. `order-upserts`, `order-payments`, the catalog's upsert and indexer groups, the back office's feed), so a second instance of the service on the same topics (a test beside a running deployment) gets every event without taking any from the first.",
    ),
  /**
   * KAFKA_NAMESPACE: put with a dot before every topic and consumer group of the process on Kafka, so runs
   * sharing one broker (benchmarks, e2e beside a running stack, CI) do not see each other's events.
   */
  kafkaNamespace: z
    .string()
    .regex(/^([A-Za-z0-9_-][A-Za-z0-9._-]{0,99})?$/, 'at most 100 letters, digits, . _ -, not starting with .')
    .default('')
    .describe(
      "Letters, digits, `.`, `_`, `-` (at most 100, not starting with `.`): every topic the service publishes to and reads, its dead-letter topics and its consumer groups are named `<namespace>.<name>` on Kafka (`shop-1.order.order.v1`, group `shop-1.order-payments`), so deployments or runs sharing one broker (benchmarks, an e2e beside a running stack, CI) never read each other's events nor each other's backlog. Every service of one shop must have the same one. Handlers get every event with its own topic (they never see the namespace). Changing it on a running shop starts it on new, empty topics: events not yet consumed stay behind on the old ones (decision 56).",
    ),
  /** `http(s)://…` of Meilisearch, or `embedded`. */
  meiliUrl: z
    .string()
    .refine((v) => v === 'embedded' || /^https?:\/\//.test(v), { message: 'must be an http(s):// URL or "embedded"' })
    .describe("Meilisearch (`http(s)://…`) for the product search, or `embedded`: an index in the catalog's process (one replica only)."),
  url: z.string().url(),
  /** DB_ACQUIRE_TIMEOUT_MS: how long a Postgres query waits for a connection of the pool (decision 98). */
  dbAcquireTimeoutMs: boundedInt(100, 600_000, 5000).describe(
    "How long a query, transaction or prepared statement waits for a connection of the process's pool (`DB_POOL_MAX`, 10) before it fails with `database: no connection of the pool to postgres://…/db within 5000 ms (10 of 10 in use, 0 free; 7 more waiting): …` (a 503 `temporarily unavailable` with `Retry-After`, decision 132; a SOAP `Server` Fault; or, in a Kafka handler, a retry after a back-off that does not count towards the event's dead letter: decision 105). Seen in the logs: look for long transactions (`pg_stat_activity`) before raising it; raise it where bursts of concurrent SOAP batches (each holds a connection while it is parsed, decision 91) meet a loaded host (decision 98). PGlite has one connection and knex's 60 s.",
  ),
  /**
   * DB_POOL_MAX: at most this many Postgres connections a process holds, knex's and `Db.query`'s together
   * (decision 90); PGlite has one whatever it says. Each replica takes this many of Postgres's `max_connections`.
   */
  dbPoolMax: boundedInt(1, 1000, 10).describe(
    "At most this many Postgres connections one process holds, knex's queries and transactions and `Db.query`'s prepared statements together (decision 90). Every replica takes this many of Postgres's `max_connections` (100 by default; less what `superuser_reserved_connections` keeps), so keep the sum over the deployments — the manifests run 8 processes with a database, 80 connections — below it, and count a PgBouncer in between if there is one. Raise it for a service whose `DB_ACQUIRE_TIMEOUT_MS` errors come with short transactions (the pool, not the transactions, is what is short: e.g. backoffice-soap with several ERPs posting batches at once, each holding a connection while it is parsed, decision 91); lower it to fit more replicas under `max_connections`. PGlite has one connection whatever it says (decision 106).",
  ),
  dbQueryTimeoutMs: boundedInt(100, 600_000, 5000).describe(
    "A SQL statement running longer is cancelled by Postgres (`statement_timeout`), and one whose answer does not come at all (a stalled server) is given up by the client a second later (pg's `query_timeout`); a statement of `Db.query` made for a request waits no longer than the request's deadline. A request then answers 503 `temporarily unavailable` with `Retry-After` instead of waiting out the stall (decision 132). Raise it for a deployment whose statements legitimately run longer (a large SOAP batch on a slow disk).",
  ),
  optionalString: z.string().optional(),
  /** `true` or `1` on, `false`, `0` or empty off. */
  flag: (fallback: boolean) =>
    z
      .enum(['true', 'false', '1', '0', ''])
      .default(fallback ? 'true' : 'false')
      .transform((v) => v === 'true' || v === '1'),
};

/** DB_PREPARED_STATEMENTS: named prepared statements on Postgres (decision 179). */
export const dbPreparedStatementsEnv = env
  .flag(true)
  .describe(
    'Postgres: every parameterized SQL statement goes out as a named prepared statement, parsed and planned once per connection instead of at every execution (at most 500 names a connection and texts up to 4,096 characters; longer ones run unnamed). A statement whose plan a migration made stale (`cached plan must not change result type`) runs again under a new name, a transaction again from its start (decision 179). Turn it off (`false`) behind a PgBouncer in transaction mode that does not keep prepared statements per client (before 1.21, or `max_prepared_statements` 0): every statement then runs unnamed. PGlite ignores it.',
  );

/** PORT, HOST, REUSE_PORT and LOG_LEVEL: what every service that serves HTTP reads. */
export const httpServiceEnv = (defaultPort: number) => ({
  PORT: env.port(defaultPort).describe('TCP port the HTTP server listens on (`0`: any free port).'),
  HOST: z.string().default('0.0.0.0').describe('Address the HTTP server listens on.'),
  /**
   * Listen with SO_REUSEPORT (decision 86): replicas of one service on one host share its port and the kernel
   * spreads their connections, as a Service spreads them over pods (the benches and e2e suites run replicas so).
   */
  REUSE_PORT: env
    .flag(false)
    .describe(
      "`true`: listen with SO_REUSEPORT (Linux), so replicas on one host share `PORT` and the kernel spreads their connections (decision 86; the benches' and e2e suites' replicas). Not needed in Kubernetes: each pod has its own address.",
    ),
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
  KAFKA_HANDLER_TIMEOUT_MS: boundedInt(1000, 3_600_000, 300_000).describe(
    "How long one run of a Kafka consumer's handler may take before it is given up: its consumer leaves the group (its partitions go to another member), a new consumer joins, and the event is handled again (consumers dedupe by event id). A handler heartbeats while it runs, so without this a hung one would hold its partitions for good. Keep it well above the longest legitimate run (a merged run of large SOAP batches in the catalog: seconds to tens of seconds); a subscription may set its own in code (`handlerTimeoutMs`; decision 76).",
  ),
  /** How many time-outs of one event's handler before the event is dead-lettered (decision 85). */
  KAFKA_HANDLER_MAX_TIMEOUTS: boundedInt(1, 100, 3).describe(
    "How many time-outs (`KAFKA_HANDLER_TIMEOUT_MS`) of one event's handler (same topic, partition and offset, counted in the process) before the event is dead-lettered (`<topic>.dlq`, `x-error: HandlerTimeoutError: event handler timed out 3 times on this event …`) and its partition moves on. Before that each time-out replaces the consumer, after a pause growing 1 s, 2 s, 4 s … 60 s while no handler settles; a `handleBatch` run that timed out is handled one by one next time, so only the event that hangs is counted (decision 85). 1 dead-letters at the first time-out.",
  ),
});

/** DATABASE_URL, DATABASE_SCHEMA, DB_POOL_MAX, DB_ACQUIRE_TIMEOUT_MS, DB_QUERY_TIMEOUT_MS and DB_PREPARED_STATEMENTS: what every service that owns tables reads. */
export const databaseEnv = (defaultSchema: string) => ({
  DATABASE_URL: env.databaseUrl,
  DB_POOL_MAX: env.dbPoolMax,
  DB_ACQUIRE_TIMEOUT_MS: env.dbAcquireTimeoutMs,
  DB_QUERY_TIMEOUT_MS: env.dbQueryTimeoutMs,
  DB_PREPARED_STATEMENTS: dbPreparedStatementsEnv,
  DATABASE_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]*$/, 'must be a lower-case SQL identifier')
    .default(defaultSchema)
    .describe("The Postgres schema of the service's tables, migrated at start."),
});

/** `httpServiceEnv` and `databaseEnv`: the least a service that owns a schema reads. */
export const dbServiceEnv = (name: string, defaultPort: number) => ({ ...httpServiceEnv(defaultPort), ...databaseEnv(name) });

const DAY_MS = 24 * 3600 * 1000;
/** Days in milliseconds, for retention periods read in days. */
export const daysToMs = (value: number): number => value * DAY_MS;
const days = (fallback: number, min: number, description: string) => z.coerce.number().min(min).default(fallback).describe(description);

/**
 * Retention of the outbox and consumer dedupe tables: what every service with an outbox reads (see
 * docs/operations.md). Unsent outbox rows are never deleted, whatever these say.
 */
export const retentionEnv = () => ({
  /** Sent outbox rows: kept only to look into; Kafka holds what was published. */
  OUTBOX_RETENTION_DAYS: days(7, 0.01, 'How long a **sent** outbox row is kept (fractions allowed); unsent rows are never deleted.'),
  /**
   * Dedupe records must outlive every redelivery: a consumer group whose offsets expired re-reads a
   * topic from the oldest message Kafka kept (7 days by default), so keep them longer than that.
   */
  PROCESSED_EVENTS_RETENTION_DAYS: days(
    14,
    1,
    "How long a consumer dedupe record (`processed_events`) is kept; must exceed Kafka's retention, see [Retention](operations.md#retention).",
  ),
  RETENTION_INTERVAL_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .default(3600)
    .describe('Period of the retention prune (the first runs a minute after start, or sooner with a shorter period).'),
  RETENTION_BATCH_SIZE: boundedInt(1, 50_000, 1000).describe(
    'Rows deleted per statement; a prune repeats statements until one deletes fewer.',
  ),
});

/**
 * OUTBOX_POLL_MS: how often a service's outbox relay looks for rows nobody told it about (rows written by
 * another replica, or left pending by a failed publish). A write through `enqueue` tells this process's
 * relay when its transaction commits, so this is a safety net, not the delivery delay (decision 66).
 */
export const outboxEnv = () => ({
  OUTBOX_POLL_MS: boundedInt(10, 600_000, 1000).describe(
    "How often a service's outbox relay looks for pending rows nobody told it about: rows another replica wrote or rows left pending while Kafka was down. Rows written through `enqueue` are published when their transaction commits (decision 66) by a relay that holds the outbox's lease (on PGlite, always); on Postgres, rows written on a replica that does not hold it wait for the holder's next poll, up to this long (decision 186).",
  ),
});

/** The backoffice's record of ERP batches: kept past Kafka's retention, to rebuild `backoffice.upsert.v1` from. */
export const receivedUpsertsRetentionEnv = () => ({
  RECEIVED_UPSERTS_RETENTION_DAYS: days(30, 1, 'How long an ERP batch (`received_upserts`) is kept once all its events are published.'),
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
