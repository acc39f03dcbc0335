import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, resolve } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import ClientPGLite from 'knex-pglite';
import pg, { types as pgTypes } from 'pg';
import type { InfrastructureWait } from '@commerce/shared-errors';
import { currentDeadline, type Logger } from '@commerce/shared-logging';
import type { Db } from './db.port';
import { openPglite as openPgliteConnection } from './pglite-loader';
import { dbObserver, timedAcquire } from './db-instruments';
import { isStalePreparedPlan, namedStatementsDialect, StatementNames, type PreparedStatementLimits } from './prepared-statements';

/** One SQL engine (a knex instance) that every service of a process shares, one schema each. */
export interface DbEngine {
  readonly knex: Knex;
  readonly engine: 'postgres' | 'pglite';
  /** The `Db` of one service: the same knex, queries qualified with that schema. */
  forSchema(schema: string): Db;
  close(): Promise<void>;
}

export interface DbEngineOptions {
  logger?: Logger;
  /** Postgres pool size (default 10; `DB_POOL_MAX`). PGlite is always one connection. */
  poolMax?: number;
  /**
   * Postgres: how long a query, transaction or prepared statement waits for a connection of the pool before it
   * fails with `DbAcquireTimeoutError` (default 5000 ms; `DB_ACQUIRE_TIMEOUT_MS`, decision 98).
   */
  acquireTimeoutMs?: number;
  /**
   * Postgres: a statement running longer is cancelled by the server (`statement_timeout`), and one whose answer
   * does not come at all (a stalled server) is given up by the client a second later (`query_timeout`); a
   * `Db.query` inside a request waits no longer than its deadline (default 5000 ms; `DB_QUERY_TIMEOUT_MS`, decision 132).
   */
  queryTimeoutMs?: number;
  /**
   * Postgres: every parameterized statement (knex's and `Db.query`'s) as a named prepared statement, parsed and
   * planned once per connection (default on; `DB_PREPARED_STATEMENTS`, decision 179). Off for a transaction-mode
   * PgBouncer that does not keep a session's prepared statements.
   */
  preparedStatements?: boolean;
  /** The bounds of the prepared statements (default `DEFAULT_PREPARED_STATEMENT_LIMITS`). */
  preparedStatementLimits?: PreparedStatementLimits;
}

/** The default of `queryTimeoutMs` (and `DB_QUERY_TIMEOUT_MS`). */
export const DEFAULT_QUERY_TIMEOUT_MS = 5000;
/** How much longer than the server's `statement_timeout` the client waits before it gives a statement up. */
const CLIENT_TIMEOUT_SLACK_MS = 1000;

/** The default of `acquireTimeoutMs` (and `DB_ACQUIRE_TIMEOUT_MS`). */
export const DEFAULT_ACQUIRE_TIMEOUT_MS = 5000;

/**
 * No connection of a Postgres pool came free in time. A knex `KnexTimeoutError` (knex adds the statement's SQL
 * to it, as before), with a message naming the pool, its size and use, and how many wait besides this one.
 * An infrastructure wait: an event bus retries the handler that met it without counting the attempt (decision 105).
 */
export class DbAcquireTimeoutError extends knexFactory.KnexTimeoutError implements InfrastructureWait {
  readonly infrastructureWait = true as const;

  constructor(
    readonly database: string,
    readonly timeoutMs: number,
    readonly pool: { max: number; used: number; free: number; waiting: number },
    options?: { cause?: unknown },
  ) {
    super(
      `database: no connection of the pool to ${database} within ${timeoutMs} ms ` +
        `(${pool.used} of ${pool.max} in use, ${pool.free} free; ${pool.waiting} more waiting): ` +
        `long transactions, or a pool too small for the load (DB_ACQUIRE_TIMEOUT_MS; decision 98)`,
      options,
    );
    this.name = 'DbAcquireTimeoutError';
  }
}

/** The database named by the URL does not answer; the message is one line, safe to log (password masked). */
export class DbUnavailableError extends Error {
  constructor(
    readonly url: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`database: cannot reach ${maskUrl(url)} (${reason})`, options);
    this.name = 'DbUnavailableError';
  }
}

/** The URL with its password replaced by `***`, for logs and error messages. */
export function maskUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*:)([^@/]*)@/i, '$1***@');
}

/** Where a PGlite URL keeps its data: `memory` or an absolute folder. */
export function pgliteLocation(url: string): 'memory' | string {
  const rest = url.slice('pglite://'.length);
  if (rest === '' || rest === 'memory') return 'memory';
  return isAbsolute(rest) ? rest : resolve(process.cwd(), rest);
}

const INT8_OID = 20;

// pg returns int8 (bigserial, count(*)) as a string while PGlite returns a number; repositories are
// written once for both, so Postgres parses int8 as a number too (exact up to 2^53).
const pgTypeOverrides = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID ? (value: string) => Number(value) : pgTypes.getTypeParser(oid, format)) as typeof pgTypes.getTypeParser,
};

/**
 * Opens the engine named by the URL: `postgres://…` / `postgresql://…` (knex + pg, connectivity checked
 * now so a wrong URL stops start-up with one clear line), `pglite://memory`, or `pglite://<folder>`
 * (`pglite://./data/pg` relative to the working directory, `pglite:///abs/path`).
 */
export async function createDbEngine(url: string, options: DbEngineOptions = {}): Promise<DbEngine> {
  if (/^postgres(ql)?:\/\//i.test(url)) return openPostgres(url, options);
  if (url.startsWith('pglite://')) return openPglite(url, options);
  throw new Error(`database: unsupported URL ${maskUrl(url)} (expected postgres://, postgresql:// or pglite://)`);
}

/** What a service's config says of its database (`databaseEnv` of @commerce/shared-config). */
export interface DbEngineConfig {
  DATABASE_URL: string;
  /** `poolMax` (decision 106). */
  DB_POOL_MAX: number;
  /** `acquireTimeoutMs` (decision 98). */
  DB_ACQUIRE_TIMEOUT_MS: number;
  /** `queryTimeoutMs` (decision 132). */
  DB_QUERY_TIMEOUT_MS?: number;
  /** `preparedStatements` (decision 179). */
  DB_PREPARED_STATEMENTS?: boolean;
}

/** The engine a service's config names: its URL, pool size and acquire time-out. */
export const createDbEngineFromConfig = (config: DbEngineConfig, logger: Logger): Promise<DbEngine> =>
  createDbEngine(config.DATABASE_URL, {
    logger,
    poolMax: config.DB_POOL_MAX,
    acquireTimeoutMs: config.DB_ACQUIRE_TIMEOUT_MS,
    ...(config.DB_QUERY_TIMEOUT_MS ? { queryTimeoutMs: config.DB_QUERY_TIMEOUT_MS } : {}),
    ...(config.DB_PREPARED_STATEMENTS === undefined ? {} : { preparedStatements: config.DB_PREPARED_STATEMENTS }),
  });

async function openPostgres(url: string, options: DbEngineOptions): Promise<DbEngine> {
  const acquireTimeoutMs = options.acquireTimeoutMs ?? DEFAULT_ACQUIRE_TIMEOUT_MS;
  const queryTimeoutMs = options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
  const names = options.preparedStatements === false ? undefined : new StatementNames(options.preparedStatementLimits, options.logger);
  const knex = knexFactory({
    client: names ? namedStatementsDialect(names) : 'pg',
    connection: {
      connectionString: url,
      // An unreachable host must fail start-up in seconds, not hang.
      connectionTimeoutMillis: 3000,
      // A slow statement is cancelled by the server; a stalled server's missing answer is given up here (decision 132).
      statement_timeout: queryTimeoutMs,
      query_timeout: queryTimeoutMs + CLIENT_TIMEOUT_SLACK_MS,
      types: pgTypeOverrides,
    } as Knex.PgConnectionConfig,
    pool: { min: 0, max: options.poolMax ?? 10 },
    log: knexLog(options.logger),
    acquireConnectionTimeout: acquireTimeoutMs,
  });
  // Before the first connection: a knex whose internals moved fails here, not subtly under load.
  const problems = knexInternalsProblems(knex);
  if (problems.length > 0) {
    await knex.destroy().catch(() => undefined);
    throw new Error(`database: ${problems.join('; ')}`);
  }
  try {
    await knex.raw('select 1');
  } catch (error) {
    await knex.destroy().catch(() => undefined);
    throw new DbUnavailableError(url, describeCause(error), { cause: error });
  }
  options.logger?.info({ database: maskUrl(url) }, 'database connected');
  return engineOf(
    knex,
    'postgres',
    preparedStatementRunner(knex, maskUrl(url), acquireTimeoutMs, queryTimeoutMs + CLIENT_TIMEOUT_SLACK_MS),
    names,
  );
}

async function openPglite(url: string, options: DbEngineOptions): Promise<DbEngine> {
  const location = pgliteLocation(url);
  if (location !== 'memory') mkdirSync(location, { recursive: true });
  const pglite = openPgliteConnection(location === 'memory' ? undefined : location);
  const knex = knexFactory({
    client: ClientPGLite,
    // Our own instance, so knex's single connection is exactly this PGlite.
    connection: (() => ({ pglite })) as unknown as Knex.StaticConnectionConfig,
    log: knexLog(options.logger),
  });
  try {
    await knex.raw('select 1');
  } catch (error) {
    await knex.destroy().catch(() => undefined);
    throw new DbUnavailableError(url, describeCause(error), { cause: error });
  }
  options.logger?.info({ database: url }, 'database opened (PGlite)');
  return engineOf(knex, 'pglite');
}

/** Knex logs with console.log by default; keep every line JSON through pino (or quiet without a logger). */
function knexLog(logger: Logger | undefined): Knex.Logger {
  const log = (level: 'warn' | 'error' | 'debug') => (message: unknown) =>
    logger?.[level]({ component: 'knex' }, typeof message === 'string' ? message : JSON.stringify(message));
  return { warn: log('warn'), error: log('error'), deprecate: log('warn'), debug: log('debug') };
}

function engineOf(knex: Knex, engine: 'postgres' | 'pglite', statements?: PreparedStatementRunner, names?: StatementNames): DbEngine {
  // Every statement knex sends, a transaction's BEGIN and COMMIT and `Db.query`'s (announced as knex's): /metrics.
  knex.on('query', () => dbObserver()?.statement());
  let closed: Promise<void> | undefined;
  return {
    knex,
    engine,
    forSchema: (schema) => createDb(knex, engine, schema, statements, names),
    close: () =>
      (closed ??= (async () => {
        // The runner's connections first: knex's pool waits for every connection taken from it.
        await statements?.close();
        await knex.destroy();
      })()),
  };
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]*$/;

interface PgConnection {
  query<R>(config: { name?: string; text: string; values: readonly unknown[] }): Promise<{ rows: R[] }>;
}

/** `Db.query`'s statement: its `$n` text, and the name it goes out under on a connection (none: unnamed). */
type StatementOn = (connection: PgClient) => { name: string | undefined; text: string };

/** Runs `Db.query`'s named prepared statements on connections it keeps from knex's pool (decisions 69 and 90). */
interface PreparedStatementRunner {
  run<R>(statement: StatementOn, values: readonly unknown[]): Promise<R[]>;
  close(): Promise<void>;
}

/** A pg client of knex's pool; knex marks it when it errs or ends (it is then dropped when it comes back). */
type PgClient = pg.Client & { __knex__disposed?: unknown };

/** What the runner uses of knex's client and its tarn pool. */
interface KnexPgClient {
  acquireConnection(): Promise<PgClient>;
  releaseConnection(connection: PgClient): Promise<void>;
  pool?: { max: number; numFree(): number; numUsed(): number; numPendingCreates(): number; numPendingAcquires(): number };
}

const POOL_COUNTERS = ['numFree', 'numUsed', 'numPendingCreates', 'numPendingAcquires'] as const;

/**
 * What the runner (decision 90) takes from knex's insides that knex does not document, checked on a Postgres
 * knex before its first connection: each problem is one phrase naming the decision and knex's version. It
 * cannot see `__knex__disposed` (set by knex's pg dialect when a connection errs or ends): db-engine.spec.ts
 * checks that one on a pg client with a fake driver.
 */
export function knexInternalsProblems(knex: Knex): string[] {
  const client = knex.client as unknown as Partial<Record<keyof KnexPgClient, unknown>>;
  const pool = client.pool as Record<string, unknown> | undefined;
  const missing = [
    ...(['acquireConnection', 'releaseConnection'] as const)
      .filter((name) => typeof client[name] !== 'function')
      .map((name) => `client.${name}()`),
    ...(pool === undefined
      ? ['client.pool']
      : [
          ...(typeof pool['max'] === 'number' ? [] : ['client.pool.max']),
          ...POOL_COUNTERS.filter((name) => typeof pool[name] !== 'function').map((name) => `client.pool.${name}()`),
        ]),
  ];
  if (missing.length === 0) return [];
  const version = installedVersion('knex');
  return missing.map(
    (what) =>
      `knex ${version} has no ${what}, which Db.query's connection runner relies on (decision 90): check knex's changes before upgrading`,
  );
}

/**
 * `Db.query`'s connections (decisions 69 and 90): connections of knex's own pool, so a process holds at most its
 * `poolMax` in all, kept by the runner between statements. A statement takes one the runner holds idle, else
 * one from knex's pool while it has one free or may open one, else (all taken) the next the runner releases if
 * it has any in use (its own queue: no tarn acquire with its promises and timers per statement), else waits in
 * knex's pool (its queue and `acquireConnectionTimeout`). It goes out as a `pg.Query` with its name (no copy of
 * a config object per query; the named statement stays prepared on the connection). A connection goes back to
 * knex's pool when someone waits there, when knex's pool is full and knex asks for one, when it failed, and when
 * the engine closes.
 */
function preparedStatementRunner(knex: Knex, database: string, timeoutMs: number, queryTimeoutMs: number): PreparedStatementRunner {
  const client = knex.client as unknown as KnexPgClient;
  const idle: PgClient[] = [];
  const waiting: Array<{ resolve(connection: PgClient): void; reject(error: unknown): void }> = [];
  let inUse = 0;
  let closed = false;
  const knexAcquire = client.acquireConnection.bind(client);
  // Knex's time-out told with the pool's state: every acquire of the engine (knex's and the runner's) comes here.
  const acquireFromKnex = () =>
    knexAcquire().catch((error: unknown) => {
      if (!(error instanceof knexFactory.KnexTimeoutError)) throw error;
      const pool = client.pool;
      throw new DbAcquireTimeoutError(
        database,
        timeoutMs,
        {
          max: pool?.max ?? 0,
          used: pool?.numUsed() ?? 0,
          free: pool?.numFree() ?? 0,
          waiting: (pool?.numPendingAcquires() ?? 0) + waiting.length,
        },
        { cause: error },
      );
    });
  const giveBack = (connection: PgClient) => void client.releaseConnection(connection).catch(() => undefined);
  const full = () => {
    const pool = client.pool;
    return pool !== undefined && pool.numFree() === 0 && pool.numUsed() + pool.numPendingCreates() >= pool.max;
  };
  // Knex's own acquires (transactions, the builder) never wait for a connection the runner keeps idle.
  client.acquireConnection = () => {
    const spare = idle.length > 0 && full() ? idle.pop() : undefined;
    if (spare) giveBack(spare);
    return timedAcquire(acquireFromKnex) as Promise<PgClient>;
  };
  const acquire = (): PgClient | Promise<PgClient> => {
    for (let connection = idle.pop(); connection; connection = idle.pop()) {
      if (!connection.__knex__disposed) return connection;
      giveBack(connection);
    }
    if (inUse > 0 && full()) return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
    return acquireFromKnex();
  };
  const release = (connection: PgClient) => {
    if (closed || connection.__knex__disposed || (client.pool?.numPendingAcquires() ?? 0) > 0) {
      giveBack(connection);
      // A statement queued here waits in knex's pool instead, where the connection went.
      const next = waiting.shift();
      if (next) acquireFromKnex().then(next.resolve, next.reject);
      return;
    }
    const next = waiting.shift();
    if (next) next.resolve(connection);
    else idle.push(connection);
  };
  return {
    async run<R>(statementOn: StatementOn, values: readonly unknown[]): Promise<R[]> {
      if (closed) throw new Error('database: engine closed');
      const taken = timedAcquire(acquire);
      const connection = taken instanceof Promise ? await taken : taken;
      inUse++;
      const statement = statementOn(connection);
      return new Promise<R[]>((resolve, reject) => {
        // A text config, named after: pg copies an object config's descriptors on every query.
        const query = new pg.Query(statement.text, values as unknown[], (error: Error | undefined, result: pg.QueryResult) => {
          inUse--;
          release(connection);
          if (error) reject(error);
          else resolve(result.rows as R[]);
        });
        if (statement.name !== undefined) (query as unknown as { name: string }).name = statement.name;
        // Inside a request, the answer is of no use past its deadline: given up then (a 503 naming the database).
        const deadline = currentDeadline();
        if (deadline !== undefined)
          (query as unknown as { query_timeout: number }).query_timeout = Math.max(1, Math.min(queryTimeoutMs, deadline - Date.now()));
        connection.query(query);
      });
    },
    async close() {
      closed = true;
      // Knex's pool waits, as it is destroyed, for every connection taken from it.
      for (const connection of idle.splice(0)) giveBack(connection);
    },
  };
}

/** An SQL identifier quoted (a `"` in it doubled): a keyword or any character is then a plain name. */
export const quoteIdentifier = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/** A text with `:name` parameters as one with `?` ones, and the names in the order they appear: made once per text. */
const named = new Map<string, { sql: string; names: string[] }>();
function positionalOf(sql: string, bindings: Readonly<Record<string, unknown>>): { sql: string; bindings: unknown[] } {
  let shape = named.get(sql);
  if (shape === undefined) {
    const names: string[] = [];
    // Not the second colon of a `::` cast.
    const text = sql.replace(/(?<!:):([A-Za-z_]\w*)/g, (_, name: string) => {
      names.push(name);
      return '?';
    });
    shape = { sql: text, names };
    // Statement shapes are few (fixed texts and a handful of line counts); bounded anyway.
    if (named.size > 1000) named.clear();
    named.set(sql, shape);
  }
  return {
    sql: shape.sql,
    bindings: shape.names.map((name) => {
      if (!Object.hasOwn(bindings, name)) throw new Error(`database: no binding for :${name}`);
      return bindings[name];
    }),
  };
}

/** `?` placeholders as `$n`, made once per text. */
const positional = new Map<string, string>();
function positionalText(sql: string): string {
  let text = positional.get(sql);
  if (text === undefined) {
    let n = 0;
    text = sql.replace(/\?/g, () => `$${++n}`);
    // Statement shapes are few (fixed texts and a handful of line counts); bounded anyway.
    if (positional.size > 1000) positional.clear();
    positional.set(sql, text);
  }
  return text;
}

/**
 * A `Db` on an existing knex; schema names are plain lowercase identifiers, a keyword among them (the all-in-one's
 * `order`): raw SQL names its tables by `qualified`, which quotes them.
 */
export function createDb(
  knex: Knex,
  engine: 'postgres' | 'pglite',
  schema: string,
  statements?: PreparedStatementRunner,
  names?: StatementNames,
): Db {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`database: invalid schema name ${JSON.stringify(schema)} (use [a-z_][a-z0-9_]*)`);
  // A statement that met a stale prepared plan runs once more under the names' next generation (decision 179).
  const againIfStale = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      if (!names || !isStalePreparedPlan(error)) throw error;
      return run();
    }
  };
  const run = async <R>(text: string, bindings: readonly unknown[]): Promise<R[]> => {
    let sent: string | undefined;
    const statementOn: StatementOn = (connection) => ({ name: (sent = names?.nameFor(connection, text)), text });
    try {
      if (statements) return await statements.run<R>(statementOn, bindings);
      const client = knex.client as { acquireConnection(): Promise<PgClient>; releaseConnection(c: PgClient): Promise<unknown> };
      const connection = await client.acquireConnection();
      try {
        const { name } = statementOn(connection);
        return (await (connection as unknown as PgConnection).query<R>({ ...(name ? { name } : {}), text, values: bindings })).rows;
      } finally {
        await client.releaseConnection(connection);
      }
    } catch (error) {
      if (sent !== undefined && isStalePreparedPlan(error)) names?.stale(sent);
      throw error;
    }
  };
  return {
    knex,
    schema,
    engine,
    table: (name, trx) => (trx ?? knex)(`${schema}.${name}`),
    qualified: (name) => `${quoteIdentifier(schema)}.${quoteIdentifier(name)}`,
    // The whole transaction runs again when a statement of it met a stale prepared plan: it was rolled back.
    transaction: (fn) => againIfStale(() => knex.transaction(fn)),
    query: async <R>(statement: string, given: readonly unknown[] | Readonly<Record<string, unknown>>): Promise<R[]> => {
      const { sql, bindings } = isPositional(given) ? { sql: statement, bindings: given } : positionalOf(statement, given);
      if (engine !== 'postgres') return ((await knex.raw(sql, bindings as Knex.RawBinding[])) as { rows: R[] }).rows;
      const text = positionalText(sql);
      // As knex announces its own queries, for whoever listens (logs, tests counting statements).
      knex.emit('query', { method: 'raw', sql, bindings });
      return againIfStale(() => run<R>(text, bindings));
    },
    ping: async () => {
      await knex.raw('select 1');
    },
  };
}

const isPositional = (bindings: readonly unknown[] | Readonly<Record<string, unknown>>): bindings is readonly unknown[] =>
  Array.isArray(bindings);

/** The version of an installed package, for messages (`unknown` in a bundle without its package.json). */
function installedVersion(name: string): string {
  try {
    return (createRequire(resolve('package.json'))(`${name}/package.json`) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

function describeCause(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown; errors?: unknown };
  // Node socket errors carry a short code (ECONNREFUSED, ENOTFOUND, ETIMEDOUT): the clearest cause.
  if (typeof e?.code === 'string' && /^E[A-Z]+$/.test(e.code)) return e.code;
  if (Array.isArray(e?.errors) && e.errors.length > 0) return describeCause(e.errors[0]);
  const message = typeof e?.message === 'string' && e.message ? e.message : String(error);
  return (message.split('\n')[0] ?? message).trim();
}
