import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventEmitter } from 'node:events';
import knexFactory, { type Knex } from 'knex';
import { createDb, createDbEngine, DbUnavailableError, knexInternalsProblems, maskUrl, pgliteLocation } from './db-engine';

describe('createDbEngine', () => {
  it('when Postgres does not answer, fails fast with one line naming the masked URL and the cause', async () => {
    const started = Date.now();
    const error = await createDbEngine('postgres://commerce:secret@127.0.0.1:1/commerce').catch((e: unknown) => e);

    expect(error).toBeInstanceOf(DbUnavailableError);
    expect((error as Error).message).toBe('database: cannot reach postgres://commerce:***@127.0.0.1:1/commerce (ECONNREFUSED)');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('refuses a URL of an unknown engine without echoing its password', async () => {
    await expect(createDbEngine('mysql://root:secret@localhost/db')).rejects.toThrow(
      'database: unsupported URL mysql://root:***@localhost/db (expected postgres://, postgresql:// or pglite://)',
    );
  });

  it('keeps a PGlite database on disk in the named folder, creating it, across a reopen', async () => {
    const root = mkdtempSync(join(tmpdir(), 'shared-db-'));
    const folder = join(root, 'nested', 'pg');
    try {
      const first = await createDbEngine(`pglite://${folder}`);
      expect(first.engine).toBe('pglite');
      await first.knex.raw('create table kept (label text)');
      await first.knex('kept').insert({ label: 'still here' });
      await first.close();
      expect(existsSync(folder)).toBe(true);

      const second = await createDbEngine(`pglite://${folder}`);
      expect(await second.knex('kept').pluck('label')).toEqual(['still here']);
      await second.close();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 60_000);

  it('refuses a schema name that would need quoting', () => {
    expect(() => createDb({} as never, 'pglite', 'Bad-Name')).toThrow('invalid schema name "Bad-Name"');
  });
});

describe('maskUrl', () => {
  it('hides the password and keeps the rest', () => {
    expect(maskUrl('postgresql://u:p%40ss@db:5432/x?sslmode=require')).toBe('postgresql://u:***@db:5432/x?sslmode=require');
  });

  it('leaves a URL without a password as it is', () => {
    expect(maskUrl('postgres://db:5432/x')).toBe('postgres://db:5432/x');
    expect(maskUrl('postgres://user@db/x')).toBe('postgres://user@db/x');
  });
});

describe('pgliteLocation', () => {
  it('reads memory, relative and absolute folders', () => {
    expect(pgliteLocation('pglite://memory')).toBe('memory');
    expect(pgliteLocation('pglite://./data/pg')).toBe(join(process.cwd(), 'data', 'pg'));
    expect(pgliteLocation('pglite:///var/lib/pg')).toBe('/var/lib/pg');
  });
});

// Decision 90's runner takes connections from knex's pool itself: knex's `client.acquireConnection` (replaced),
// `releaseConnection`, tarn's pool counters, and the `__knex__disposed` mark of knex's pg dialect. None of it is
// knex's documented API: a knex upgrade that moves any of it must fail here, by name, not under load.
describe("knex's internals that Db.query's runner relies on (decision 90)", () => {
  /** A pg client of no server: knex's pg dialect and pool run on it as on pg's. */
  class FakePgConnection extends EventEmitter {
    connect = () => Promise.resolve();
    end = (callback?: () => void) => {
      callback?.();
      return Promise.resolve();
    };
  }
  const fakeKnex = (): Knex => {
    // `version` given: knex asks a new connection for it otherwise.
    const knex = knexFactory({ client: 'pg', version: '16', connection: {}, pool: { min: 0, max: 2 }, acquireConnectionTimeout: 200 });
    (knex.client as { driver: unknown }).driver = { Client: FakePgConnection };
    return knex;
  };
  type Pool = { max: number; numFree(): number; numUsed(): number; numPendingCreates(): number; numPendingAcquires(): number };
  type Client = {
    acquireConnection(): Promise<FakePgConnection & { __knex__disposed?: unknown }>;
    releaseConnection(c: unknown): Promise<void>;
    pool: Pool;
  };

  it('are there with the shape the runner uses: acquire and release on the client, the pool with its max and counters', async () => {
    const knex = fakeKnex();
    try {
      expect(knexInternalsProblems(knex)).toEqual([]);
      const client = knex.client as unknown as Client;
      const counters = () => [
        client.pool.numFree(),
        client.pool.numUsed(),
        client.pool.numPendingCreates(),
        client.pool.numPendingAcquires(),
      ];
      expect({ max: client.pool.max, counters: counters() }).toEqual({ max: 2, counters: [0, 0, 0, 0] });
      const first = await client.acquireConnection();
      expect(first).toBeInstanceOf(FakePgConnection);
      expect(counters()).toEqual([0, 1, 0, 0]);
      const second = await client.acquireConnection();
      // Full: a third acquire waits in the pool (counted), then times out with knex's error.
      const third = client.acquireConnection().catch((error: unknown) => error);
      await new Promise((r) => setImmediate(r));
      expect(counters()).toEqual([0, 2, 0, 1]);
      expect(await third).toBeInstanceOf(knexFactory.KnexTimeoutError);
      await client.releaseConnection(first);
      await client.releaseConnection(second);
      expect(counters()).toEqual([2, 0, 0, 0]);
    } finally {
      await knex.destroy();
    }
  });

  it("knex's pg dialect marks a connection that errs or ends `__knex__disposed`, and its pool drops it when it comes back", async () => {
    const knex = fakeKnex();
    try {
      const client = knex.client as unknown as Client;
      const failing = await client.acquireConnection();
      const ending = await client.acquireConnection();
      expect(failing.__knex__disposed).toBeFalsy();
      failing.emit('error', new Error('connection reset'));
      ending.emit('end');
      expect(failing.__knex__disposed).toEqual(new Error('connection reset'));
      expect(ending.__knex__disposed).toBeTruthy();
      await client.releaseConnection(failing);
      await client.releaseConnection(ending);
      // Validated at the next acquire: both dropped, a new connection made.
      const next = await client.acquireConnection();
      expect([next === failing, next === ending, next.__knex__disposed]).toEqual([false, false, undefined]);
      await client.releaseConnection(next);
    } finally {
      await knex.destroy();
    }
  });

  it('a missing one is named, with the decision, before a connection is made', async () => {
    const knex = fakeKnex();
    try {
      const client = knex.client as unknown as { pool: unknown; releaseConnection: unknown };
      const pool = client.pool;
      // The same pool without one counter (a renamed method), and the client without its release.
      client.pool = Object.assign(Object.create(pool as object) as object, { numPendingCreates: undefined });
      client.releaseConnection = undefined;
      const problems = knexInternalsProblems(knex);
      client.pool = pool;
      expect(problems).toEqual([
        expect.stringMatching(
          /^knex \S+ has no client\.releaseConnection\(\), which Db\.query's connection runner relies on \(decision 90\)/,
        ),
        expect.stringMatching(/^knex \S+ has no client\.pool\.numPendingCreates\(\), which .* \(decision 90\)/),
      ]);
      expect(problems[0]).not.toMatch(/^knex unknown/);
    } finally {
      await knex.destroy();
    }
  });
});
