import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import ClientPGLite from 'knex-pglite';
import pg, { types as pgTypes } from 'pg';
import type { Logger } from '@commerce/shared-logging';
import type { Db } from './db.port';
import { openPglite as openPgliteConnection } from './pglite-loader';

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
  /** Postgres pool size (default 10). PGlite is always one connection. */
  poolMax?: number;
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

async function openPostgres(url: string, options: DbEngineOptions): Promise<DbEngine> {
  const knex = knexFactory({
    client: 'pg',
    connection: {
      connectionString: url,
      // An unreachable host must fail start-up in seconds, not hang.
      connectionTimeoutMillis: 3000,
      types: pgTypeOverrides,
    } as Knex.PgConnectionConfig,
    pool: { min: 0, max: options.poolMax ?? 10 },
    log: knexLog(options.logger),
    acquireConnectionTimeout: 5000,
  });
  try {
    await knex.raw('select 1');
  } catch (error) {
    await knex.destroy().catch(() => undefined);
    throw new DbUnavailableError(url, describeCause(error), { cause: error });
  }
  options.logger?.info({ database: maskUrl(url) }, 'database connected');
  const statements = preparedStatementRunner(
    { connectionString: url, connectionTimeoutMillis: 3000, types: pgTypeOverrides },
    options.poolMax ?? 10,
  );
  return engineOf(knex, 'postgres', statements);
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

function engineOf(knex: Knex, engine: 'postgres' | 'pglite', statements?: PreparedStatementRunner): DbEngine {
  let closed: Promise<void> | undefined;
  return {
    knex,
    engine,
    forSchema: (schema) => createDb(knex, engine, schema, statements),
    close: () => (closed ??= Promise.all([knex.destroy(), statements?.close()]).then(() => undefined)),
  };
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]*$/;

interface PgConnection {
  query<R>(config: { name: string; text: string; values: readonly unknown[] }): Promise<{ rows: R[] }>;
}

/** Runs `Db.query`'s named prepared statements on connections of its own (decision 69). */
interface PreparedStatementRunner {
  run<R>(statement: { name: string; text: string }, values: readonly unknown[]): Promise<R[]>;
  close(): Promise<void>;
}

type PgClient = pg.Client & { dead?: boolean };

/**
 * A pool of at most `max` pg clients for `Db.query`, beside knex's (decision 69): a statement takes an idle
 * client, or opens one while under `max`, or waits for the next release, and goes out as a `pg.Query` with
 * its name (no knex acquire with its pending-operation promises and timers, no copy of a config object
 * per query). Clients open on demand and stay open until the engine closes; one that fails is dropped.
 */
function preparedStatementRunner(config: pg.ClientConfig, max: number): PreparedStatementRunner {
  const idle: PgClient[] = [];
  const waiting: Array<{ resolve(client: PgClient): void; reject(error: unknown): void }> = [];
  const all = new Set<PgClient>();
  let opening = 0;
  let closed = false;
  const open = async (): Promise<PgClient> => {
    opening++;
    const client: PgClient = new pg.Client(config);
    client.on('error', () => {
      client.dead = true;
    });
    try {
      await client.connect();
    } catch (error) {
      client.dead = true;
      throw error;
    } finally {
      opening--;
    }
    all.add(client);
    return client;
  };
  const acquire = (): PgClient | Promise<PgClient> => {
    if (closed) throw new Error('database: engine closed');
    for (let client = idle.pop(); client; client = idle.pop()) {
      if (!client.dead) return client;
      all.delete(client);
      void client.end().catch(() => undefined);
    }
    if (all.size + opening < max) return open();
    return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
  };
  const release = (client: PgClient) => {
    if (client.dead || closed) {
      all.delete(client);
      void client.end().catch(() => undefined);
      // A waiter gets a fresh client in its place.
      const next = waiting.shift();
      if (next && !closed) open().then(next.resolve, next.reject);
      return;
    }
    const next = waiting.shift();
    if (next) next.resolve(client);
    else idle.push(client);
  };
  return {
    async run<R>(statement: { name: string; text: string }, values: readonly unknown[]): Promise<R[]> {
      const taken = acquire();
      const client = taken instanceof Promise ? await taken : taken;
      return new Promise<R[]>((resolve, reject) => {
        // A text config, named after: pg copies an object config's descriptors on every query.
        const query = new pg.Query(statement.text, values as unknown[], (error: Error | undefined, result: pg.QueryResult) => {
          release(client);
          if (error) reject(error);
          else resolve(result.rows as R[]);
        });
        (query as unknown as { name: string }).name = statement.name;
        client.query(query);
      });
    },
    async close() {
      closed = true;
      for (const w of waiting.splice(0)) w.reject(new Error('database: engine closed'));
      idle.length = 0;
      await Promise.all([...all].map((c) => c.end().catch(() => undefined)));
      all.clear();
    },
  };
}

/** `?` placeholders as `$n`, and a name from the text's digest: the same text is one prepared statement per connection. */
const prepared = new Map<string, { name: string; text: string }>();
function preparedStatement(sql: string): { name: string; text: string } {
  let statement = prepared.get(sql);
  if (!statement) {
    let n = 0;
    statement = { name: `q_${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`, text: sql.replace(/\?/g, () => `$${++n}`) };
    // Statement shapes are few (fixed texts and a handful of line counts); bounded anyway.
    if (prepared.size > 1000) prepared.clear();
    prepared.set(sql, statement);
  }
  return statement;
}

/** A `Db` on an existing knex; schema names are plain lowercase identifiers so that they never need quoting. */
export function createDb(knex: Knex, engine: 'postgres' | 'pglite', schema: string, statements?: PreparedStatementRunner): Db {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`database: invalid schema name ${JSON.stringify(schema)} (use [a-z_][a-z0-9_]*)`);
  return {
    knex,
    schema,
    engine,
    table: (name, trx) => (trx ?? knex)(`${schema}.${name}`),
    transaction: (fn) => knex.transaction(fn),
    query: async <R>(sql: string, bindings: readonly unknown[]): Promise<R[]> => {
      if (engine !== 'postgres') return ((await knex.raw(sql, bindings as Knex.RawBinding[])) as { rows: R[] }).rows;
      const statement = preparedStatement(sql);
      // As knex announces its own queries, for whoever listens (logs, tests counting statements).
      knex.emit('query', { method: 'raw', sql, bindings });
      if (statements) return statements.run<R>(statement, bindings);
      const client = knex.client as { acquireConnection(): Promise<PgConnection>; releaseConnection(c: PgConnection): Promise<unknown> };
      const connection = await client.acquireConnection();
      try {
        return (await connection.query<R>({ name: statement.name, text: statement.text, values: bindings })).rows;
      } finally {
        await client.releaseConnection(connection);
      }
    },
    ping: async () => {
      await knex.raw('select 1');
    },
  };
}

function describeCause(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown; errors?: unknown };
  // Node socket errors carry a short code (ECONNREFUSED, ENOTFOUND, ETIMEDOUT): the clearest cause.
  if (typeof e?.code === 'string' && /^E[A-Z]+$/.test(e.code)) return e.code;
  if (Array.isArray(e?.errors) && e.errors.length > 0) return describeCause(e.errors[0]);
  const message = typeof e?.message === 'string' && e.message ? e.message : String(error);
  return (message.split('\n')[0] ?? message).trim();
}
