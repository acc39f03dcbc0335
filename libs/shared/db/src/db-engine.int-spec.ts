import { Client } from 'pg';
import { createLogger } from '@commerce/shared-logging';
import { describeWithEngines, uniqueName } from '@commerce/shared-testing';
import { createDbEngine, createDbEngineFromConfig, DbAcquireTimeoutError, type DbEngine } from './db-engine';
import { observeDb } from './db-instruments';

// `Db.query`'s prepared statements run on connections of knex's own pool (decision 90): a process holds at most
// `poolMax` connections in all. Before, they had a pool of their own beside knex's: up to twice `poolMax`.
describeWithEngines('Db engine on Postgres: one bound on connections', ['postgres'], (engines) => {
  /** An engine whose connections carry an application name of their own, to be counted in pg_stat_activity. */
  const open = async (poolMax: number, acquireTimeoutMs?: number): Promise<{ engine: DbEngine; connections: () => Promise<number> }> => {
    const name = uniqueName('pool');
    const url = new URL(engines.url('postgres'));
    url.searchParams.set('application_name', name);
    const engine = await createDbEngine(url.toString(), { poolMax, ...(acquireTimeoutMs ? { acquireTimeoutMs } : {}) });
    const watcher = new Client({ connectionString: engines.url('postgres') });
    await watcher.connect();
    const close = engine.close.bind(engine);
    engine.close = async () => {
      await close();
      await watcher.end();
    };
    const connections = async () =>
      Number((await watcher.query(`select count(*) as n from pg_stat_activity where application_name = $1`, [name])).rows[0].n);
    return { engine, connections };
  };

  it('tells the observer each wait for a connection (db_pool_acquire_seconds, issue 28): none at hand, the full pool its time', async () => {
    const waits: number[] = [];
    let statements = 0;
    observeDb({ statement: () => statements++, acquired: (seconds) => waits.push(seconds) });
    const { engine } = await open(1);
    try {
      const db = engine.forSchema('public');
      await db.query('select 1', []);
      waits.length = 0;
      statements = 0;
      // One connection: the second transaction waits for the first's 200 ms; the statement after them finds it at hand.
      await Promise.all([0, 1].map(() => engine.knex.transaction((trx) => trx.raw('select pg_sleep(0.2)'))));
      await db.query('select 2', []);
      expect(waits.filter((s) => s >= 0.15)).toHaveLength(1);
      expect(waits.length).toBeGreaterThanOrEqual(3);
      expect(statements).toBe(7);
    } finally {
      observeDb(undefined);
      await engine.close();
    }
  }, 60_000);

  it('never holds more than poolMax connections while Db.query and knex transactions run at once, and finishes them all', async () => {
    const { engine, connections } = await open(3);
    try {
      const db = engine.forSchema('public');
      let most = 0;
      let running = true;
      const watching = (async () => {
        while (running) {
          most = Math.max(most, await connections());
          await new Promise((r) => setTimeout(r, 20));
        }
      })();
      const statements = Array.from({ length: 24 }, (_, i) =>
        db.query<{ n: number }>('select ?::int as n from pg_sleep(0.05)', [i]).then((rows) => rows[0]?.n),
      );
      const transactions = Array.from({ length: 8 }, (_, i) =>
        engine.knex.transaction(async (trx) => {
          await trx.raw('select pg_sleep(0.05)');
          return i;
        }),
      );
      expect(await Promise.all(statements)).toEqual(Array.from({ length: 24 }, (_, i) => i));
      expect(await Promise.all(transactions)).toEqual(Array.from({ length: 8 }, (_, i) => i));
      running = false;
      await watching;
      // Both sides wanted more than three at once; the two pools of before opened up to six.
      expect(most).toBeGreaterThanOrEqual(2);
      expect(most).toBeLessThanOrEqual(3);
      expect(await connections()).toBeLessThanOrEqual(3);
    } finally {
      await engine.close();
    }
  }, 60_000);

  it('gives knex a connection the statements hold idle rather than making a transaction wait for one', async () => {
    const { engine, connections } = await open(2);
    try {
      const db = engine.forSchema('public');
      // Two at once: the runner now holds both connections, idle.
      await Promise.all([db.query('select pg_sleep(0.05)', []), db.query('select pg_sleep(0.05)', [])]);
      expect(await connections()).toBe(2);
      // Two transactions at once get both (without, they would wait for knex's 5 s acquire time-out and fail).
      const both = await Promise.all(
        [1, 2].map((i) => engine.knex.transaction(async (trx) => (await trx.raw('select ?::int as i, pg_sleep(0.2)', [i])).rows[0].i)),
      );
      expect(both).toEqual([1, 2]);
      // And the statements get them back.
      expect(await db.query<{ n: number }>('select ?::int as n', [7])).toEqual([{ n: 7 }]);
    } finally {
      await engine.close();
    }
  }, 60_000);

  it('keeps a statement prepared on its connection, across a transaction that used the same connection', async () => {
    const { engine } = await open(1);
    try {
      const db = engine.forSchema('public');
      const sql = 'select ?::int + 1 as n';
      expect(await db.query(sql, [1])).toEqual([{ n: 2 }]);
      await engine.knex.transaction(async (trx) => trx.raw('select 1'));
      expect(await db.query(sql, [2])).toEqual([{ n: 3 }]);
      const prepared = await db.query<{ runs: number }>(
        'select generic_plans + custom_plans as runs from pg_prepared_statements where statement = ?',
        ['select $1::int + 1 as n'],
      );
      // Prepared once, run twice (not prepared again after the transaction).
      expect(prepared.map((p) => Number(p.runs))).toEqual([2]);
    } finally {
      await engine.close();
    }
  }, 60_000);

  it('gives up a wait for a connection after acquireTimeoutMs with an error naming the pool, its use and who else waits (decision 98)', async () => {
    const { engine } = await open(1, 300);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    try {
      const db = engine.forSchema('public');
      const holding = engine.knex.transaction(async (trx) => {
        await trx.raw('select 1');
        await held;
      });
      await new Promise((r) => setTimeout(r, 100));
      // A prepared statement (the runner's path) and a knex query (knex's own), both waiting for the one connection.
      const [statement, query] = await Promise.all([
        db.query('select 1', []).catch((error: unknown) => error),
        engine.knex.raw('select 2').catch((error: unknown) => error),
      ]);
      for (const error of [statement, query]) {
        expect(error).toBeInstanceOf(DbAcquireTimeoutError);
        expect((error as Error).message).toMatch(
          /^database: no connection of the pool to postgres:\/\/\S+ within 300 ms \(1 of 1 in use, 0 free; [01] more waiting\): .*DB_ACQUIRE_TIMEOUT_MS/,
        );
        // The password masked (maskUrl), the rest of the URL named.
        expect((error as Error).message).toContain(`//${new URL(engines.url('postgres')).username}:***@`);
      }
      // Knex still adds the statement to its time-out error, as before.
      expect((query as { sql?: string }).sql).toBe('select 2');
      release();
      await holding;
      expect(await db.query<{ n: number }>('select 3 as n', [])).toEqual([{ n: 3 }]);
    } finally {
      release();
      await engine.close();
    }
  }, 60_000);

  it("takes its pool's size and acquire time-out from the service's config (DB_POOL_MAX, DB_ACQUIRE_TIMEOUT_MS; decision 106)", async () => {
    const name = uniqueName('pool');
    const url = new URL(engines.url('postgres'));
    url.searchParams.set('application_name', name);
    const engine = await createDbEngineFromConfig(
      { DATABASE_URL: url.toString(), DB_POOL_MAX: 2, DB_ACQUIRE_TIMEOUT_MS: 300 },
      createLogger('pool-config-test', 'silent'),
    );
    const watcher = new Client({ connectionString: engines.url('postgres') });
    await watcher.connect();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    try {
      // Two transactions hold both connections; a third statement waits 300 ms and is told the pool is 2 of 2.
      const holding = [1, 2].map(() =>
        engine.knex.transaction(async (trx) => {
          await trx.raw('select 1');
          await held;
        }),
      );
      const connections = async () =>
        (await watcher.query(`select count(*)::int as n from pg_stat_activity where application_name = $1`, [name])).rows[0].n;
      for (let tries = 0; (await connections()) < 2 && tries < 100; tries++) await new Promise((r) => setTimeout(r, 50));
      expect(await connections()).toBe(2);
      const error = await engine
        .forSchema('public')
        .query('select 1', [])
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DbAcquireTimeoutError);
      expect((error as Error).message).toMatch(/ within 300 ms \(2 of 2 in use, 0 free; /);
      release();
      await Promise.all(holding);
    } finally {
      release();
      await engine.close();
      await watcher.end();
    }
  }, 60_000);
});
