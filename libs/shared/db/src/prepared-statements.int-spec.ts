import pino from 'pino';
import { describeWithEngines, uniqueName } from '@commerce/shared-testing';
import { createDbEngine, type DbEngine } from './db-engine';
import type { Db } from './db.port';
import type { PreparedStatementLimits } from './prepared-statements';

// Decision 167: every parameterized statement, knex's and `Db.query`'s, goes out named and is prepared once per
// connection. With a pool of one connection, `pg_prepared_statements` (the session's own) and its plan counters
// show what Postgres prepared and how often it ran each.
describeWithEngines('prepared statements on Postgres (decision 179)', ['postgres'], (engines) => {
  let engine: DbEngine;
  let db: Db;
  let schema: string;

  /** The engine's log lines at warn and above. */
  let warnings: Array<{ msg: string; preparedStatements?: number; ofOlderGenerations?: number }>;
  const open = async (options: { preparedStatements?: boolean; preparedStatementLimits?: PreparedStatementLimits } = {}) => {
    warnings = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line) as (typeof warnings)[number]) });
    engine = await createDbEngine(engines.url('postgres'), { poolMax: 1, logger, ...options });
    schema = uniqueName('prep');
    await engine.knex.raw(`create schema ${schema}`);
    await engine.knex.raw(`create table ${schema}.things (id int primary key, label text not null)`);
    db = engine.forSchema(schema);
  };
  afterEach(async () => {
    await engine.knex.raw(`drop schema if exists ${schema} cascade`);
    await engine.close();
  });

  /** The session's prepared statements (the one connection's): text → executions. */
  const prepared = async (): Promise<Map<string, number>> => {
    const rows = (await engine.knex.raw(`select statement, generic_plans + custom_plans as runs from pg_prepared_statements`)) as {
      rows: Array<{ statement: string; runs: number }>;
    };
    return new Map(rows.rows.map((r) => [r.statement, Number(r.runs)]));
  };
  const preparedLike = async (fragment: string) => [...(await prepared())].filter(([text]) => text.includes(fragment));

  it('prepares a repeated builder statement once and runs it by name, in a transaction or not, answering the same rows', async () => {
    await open();
    await db.table('things').insert({ id: 1, label: 'one' });
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await db.table('things').where({ id: 1 }).first('id', 'label'));
    answers.push(await db.transaction((trx) => db.table('things', trx).where({ id: 1 }).first('id', 'label')));
    expect(answers).toEqual(Array(4).fill({ id: 1, label: 'one' }));
    const selects = await preparedLike(`from "${schema}"."things" where "id" = $1`);
    expect(selects).toHaveLength(1);
    expect(selects[0]![1]).toBe(4);
    // The insert (with its values) is prepared too: it had bindings. A statement without any is not.
    expect(await preparedLike(`insert into "${schema}"."things"`)).toHaveLength(1);
    await engine.knex.raw(`select count(*) from ${schema}.things`);
    expect(await preparedLike('select count(*)')).toHaveLength(0);
  }, 60_000);

  it('keeps the error a statement met, and its code, on its first and its prepared runs', async () => {
    await open();
    await db.table('things').insert({ id: 1, label: 'one' });
    for (let i = 0; i < 2; i++) {
      const error = (await db
        .table('things')
        .insert({ id: 1, label: 'again' })
        .catch((e: unknown) => e)) as { code?: string; constraint?: string };
      expect(error).toMatchObject({ code: '23505', constraint: 'things_pkey' });
    }
    const inTransaction = (await db
      .transaction(async (trx) => db.table('things', trx).insert({ id: 1, label: 'again' }))
      .catch((e: unknown) => e)) as { code?: string };
    expect(inTransaction.code).toBe('23505');
    // A bad value is refused as before (the statement stays prepared for good values).
    const bad = (await db.query('select ?::int as n', ['x']).catch((e: unknown) => e)) as { code?: string };
    expect(bad.code).toBe('22P02');
    expect(await db.query('select ?::int as n', ['2'])).toEqual([{ n: 2 }]);
  }, 60_000);

  it('runs a text over the length bound, and any new text on a connection holding the most names, unnamed', async () => {
    await open({ preparedStatementLimits: { maxTextLength: 200, perConnection: 3 } });
    const long = `select ?::int as n /* ${'x'.repeat(200)} */`;
    expect(await db.query(long, [1])).toEqual([{ n: 1 }]);
    expect(await preparedLike('xxxx')).toHaveLength(0);
    for (let i = 0; i < 6; i++) expect(await db.query(`select ?::int + ${i} as n`, [1])).toEqual([{ n: 1 + i }]);
    expect((await prepared()).size).toBe(3);
    // Told once (the one connection), at warn.
    expect(warnings).toEqual([
      expect.objectContaining({ preparedStatements: 3, ofOlderGenerations: 0, msg: expect.stringContaining('run unnamed') }),
    ]);
    // The named ones still run by their name.
    await db.query('select ?::int + 0 as n', [5]);
    expect((await preparedLike('+ 0 as n'))[0]![1]).toBe(2);
  }, 60_000);

  it('prepares nothing when turned off (DB_PREPARED_STATEMENTS=false), Db.query included', async () => {
    await open({ preparedStatements: false });
    await db.table('things').insert({ id: 1, label: 'one' });
    await db.table('things').where({ id: 1 }).first();
    await db.query('select ?::int as n', [1]);
    await db.transaction((trx) => db.table('things', trx).where({ id: 1 }).first());
    expect((await prepared()).size).toBe(0);
  }, 60_000);

  it('answers with the new columns after a migration changed a prepared `*` statement: alone, in a transaction, through Db.query', async () => {
    await open();
    await db.table('things').insert({ id: 1, label: 'one' });
    const read = () => db.table('things').where({ id: 1 }).first();
    const readInTransaction = () => db.transaction((trx) => db.table('things', trx).where({ id: 1 }).first());
    const query = async () => (await db.query(`select * from ${schema}.things where id = ?`, [1]))[0];
    const named = async () => (await db.query(`select *, 0 as named from ${schema}.things where id = :id`, { id: 1 }))[0];
    for (const run of [read, readInTransaction, query]) expect(await run()).toEqual({ id: 1, label: 'one' });
    expect(await named()).toEqual({ id: 1, label: 'one', named: 0 });
    // Named bindings go out as the positional ones do: one prepared statement, run by its name.
    expect(await named()).toEqual({ id: 1, label: 'one', named: 0 });
    expect((await preparedLike('0 as named'))[0]).toEqual([`select *, 0 as named from ${schema}.things where id = $1`, 2]);

    await engine.knex.raw(`alter table ${schema}.things add column note text default 'n'`);
    // Postgres refuses the old plans ("cached plan must not change result type"); each runs again, renamed.
    expect(await readInTransaction()).toEqual({ id: 1, label: 'one', note: 'n' });
    expect(await read()).toEqual({ id: 1, label: 'one', note: 'n' });
    expect(await query()).toEqual({ id: 1, label: 'one', note: 'n' });
    expect(await named()).toEqual({ id: 1, label: 'one', note: 'n', named: 0 });

    await engine.knex.raw(`alter table ${schema}.things add column extra int default 7`);
    expect(await read()).toEqual({ id: 1, label: 'one', note: 'n', extra: 7 });
    expect(await query()).toEqual({ id: 1, label: 'one', note: 'n', extra: 7 });
    expect(await named()).toEqual({ id: 1, label: 'one', note: 'n', extra: 7, named: 0 });
    expect(await readInTransaction()).toEqual({ id: 1, label: 'one', note: 'n', extra: 7 });
    // The older generations' names stay on the connection, counted in its bound, far below it here: nothing told.
    expect(warnings).toEqual([]);
  }, 60_000);
});
