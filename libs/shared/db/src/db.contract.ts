import { uniqueName } from '@commerce/shared-testing';
import type { DbEngine } from './db-engine';
import type { Db, Migration } from './db.port';
import { migrate } from './migrate';

/**
 * The behaviour every `Db` and `migrate` must show, whatever the engine: run by `db.spec.ts` on PGlite
 * and by `db.int-spec.ts` on Postgres, so the two cannot drift apart. One engine per file (PGlite's
 * start costs seconds), one schema per test. `keywordSchema` (an engine of the file's own: the name is not unique)
 * runs a table of a schema named by an SQL keyword.
 */
export function dbContract(openEngine: () => Promise<DbEngine>, keywordSchema?: 'order'): void {
  let engine: DbEngine;
  let db: Db;

  beforeAll(async () => {
    engine = await openEngine();
  }, 60_000);
  afterAll(async () => {
    await engine?.close();
  });
  beforeEach(() => {
    db = engine.forSchema(uniqueName('db'));
  });

  const createTable = (name: string, ran?: string[]): Migration => ({
    name: `create-${name}`,
    up: async (knex, schema) => {
      ran?.push(name);
      await knex.schema.withSchema(schema).createTable(name, (t) => {
        t.bigIncrements('id');
        t.text('label').notNullable();
      });
    },
  });

  const tableExists = async (schema: string, name: string) =>
    (await db.knex.raw('select 1 from information_schema.tables where table_schema = ? and table_name = ?', [schema, name])).rows.length >
    0;

  describe('migrate', () => {
    it('creates the missing schema and runs the migrations in list order', async () => {
      const ran: string[] = [];
      await migrate(db, [createTable('b', ran), createTable('a', ran), createTable('c', ran)]);

      expect(ran).toEqual(['b', 'a', 'c']);
      for (const name of ['a', 'b', 'c']) expect(await tableExists(db.schema, name)).toBe(true);
    });

    it('hands each migration the schema it belongs to', async () => {
      const seen: string[] = [];
      await migrate(db, [{ name: 'probe', up: async (_knex, schema) => void seen.push(schema) }]);

      expect(seen).toEqual([db.schema]);
    });

    it('runs only the migrations that have not run yet', async () => {
      const ran: string[] = [];
      await migrate(db, [createTable('a', ran)]);
      await migrate(db, [createTable('a', ran)]);
      await migrate(db, [createTable('a', ran), createTable('b', ran)]);

      expect(ran).toEqual(['a', 'b']);
    });

    it('when a migration fails, rejects and leaves none of that run applied', async () => {
      await migrate(db, [createTable('a')]);
      const failing: Migration = { name: 'boom', up: async () => Promise.reject(new Error('boom')) };

      await expect(migrate(db, [createTable('a'), createTable('b'), failing])).rejects.toThrow('boom');
      expect(await tableExists(db.schema, 'b')).toBe(false);

      const ran: string[] = [];
      await migrate(db, [createTable('a', ran), createTable('b', ran), { name: 'boom', up: async () => undefined }]);
      expect(ran).toEqual(['b']);
    });

    it('when two start at once, each migration runs exactly once and both resolve', async () => {
      const ran: string[] = [];
      const list = [createTable('a', ran), createTable('b', ran)];

      await Promise.all([migrate(db, list), migrate(db, list)]);

      expect(ran).toEqual(['a', 'b']);
    });

    it('refuses a list with two migrations of the same name', async () => {
      await expect(migrate(db, [createTable('a'), createTable('a')])).rejects.toThrow('duplicate migration name create-a');
    });
  });

  describe('Db', () => {
    it('qualifies every table with its schema, so two services never see each other’s rows', async () => {
      const other = engine.forSchema(uniqueName('db_other'));
      await migrate(db, [createTable('items')]);
      await migrate(other, [createTable('items')]);

      await db.table('items').insert({ label: 'mine' });
      await other.table('items').insert({ label: 'theirs' });

      expect(await db.table('items').pluck('label')).toEqual(['mine']);
      expect(await other.table('items').pluck('label')).toEqual(['theirs']);
    });

    it('commits what a transaction wrote when its function resolves', async () => {
      await migrate(db, [createTable('items')]);

      const result = await db.transaction(async (trx) => {
        await db.table('items', trx).insert({ label: 'kept' });
        return 'done';
      });

      expect(result).toBe('done');
      expect(await db.table('items').pluck('label')).toEqual(['kept']);
    });

    it('rolls back what a transaction wrote when its function throws', async () => {
      await migrate(db, [createTable('items')]);

      await expect(
        db.transaction(async (trx) => {
          await db.table('items', trx).insert({ label: 'lost' });
          throw new Error('abort');
        }),
      ).rejects.toThrow('abort');

      expect(await db.table('items').count({ n: '*' })).toEqual([{ n: 0 }]);
    });

    it('returns bigint columns and counts as numbers on every engine', async () => {
      await migrate(db, [createTable('items')]);
      const [row] = await db.table('items').insert({ label: 'x' }).returning('id');

      expect(row).toEqual({ id: expect.any(Number) });
      expect(await db.table('items').count({ n: '*' })).toEqual([{ n: 1 }]);
    });

    it('stores and returns timestamps, json and bytes unchanged', async () => {
      const at = new Date('2024-05-06T07:08:09.123Z');
      await migrate(db, [
        {
          name: 'values',
          up: (knex, schema) =>
            knex.schema.withSchema(schema).createTable('vals', (t) => {
              t.timestamp('at', { useTz: true });
              t.jsonb('doc');
              t.binary('bytes');
              t.specificType('tags', 'text[]');
            }),
        },
      ]);

      await db.table('vals').insert({ at, doc: JSON.stringify({ a: [1, 'x'] }), bytes: Buffer.from('hi'), tags: ['p', 'q'] });
      const [row] = await db.table('vals').select();

      expect(row.at).toBeInstanceOf(Date);
      expect(row).toStrictEqual({ at, doc: { a: [1, 'x'] }, bytes: Buffer.from('hi'), tags: ['p', 'q'] });
      expect(await db.table('vals').where('at', '=', at).count({ n: '*' })).toEqual([{ n: 1 }]);
    });

    it('runs a statement with positional parameters through query, the same text again too, and announces it', async () => {
      await migrate(db, [createTable('items')]);
      const seen: string[] = [];
      const listen = (q: { sql: string }) => void seen.push(q.sql);
      db.knex.on('query', listen);
      try {
        const insert = `insert into ${db.schema}.items (label) values (?), (?) returning id, label`;
        expect(await db.query(insert, ['a', 'b'])).toEqual([
          { id: expect.any(Number), label: 'a' },
          { id: expect.any(Number), label: 'b' },
        ]);
        await db.query(insert, ['c', 'd']);
        const select = `select label, count(*) over () as n from ${db.schema}.items where label > ? order by label`;
        expect(await db.query(select, ['a'])).toEqual([
          { label: 'b', n: 3 },
          { label: 'c', n: 3 },
          { label: 'd', n: 3 },
        ]);
        expect(await db.query(select, ['z'])).toEqual([]);
      } finally {
        db.knex.off('query', listen);
      }
      expect(seen.filter((sql) => sql.includes(`${db.schema}.items`))).toHaveLength(4);
    });

    it('runs a statement with named parameters through query: a name used twice, casts left alone, a missing name refused', async () => {
      await migrate(db, [createTable('items')]);
      const insert = `insert into ${db.qualified('items')} (label) values (:first), (:second || '-' || :first::text) returning label`;
      expect(await db.query(insert, { second: 'b', first: 'a', unused: 'x' })).toEqual([{ label: 'a' }, { label: 'b-a' }]);
      const select = `select label::text as label, cast(:n as int) as n from ${db.qualified('items')} where label = any(cast(:labels as text[])) order by label`;
      expect(await db.query(select, { n: 2, labels: ['a', 'b-a', 'c'] })).toEqual([
        { label: 'a', n: 2 },
        { label: 'b-a', n: 2 },
      ]);
      await expect(db.query(select, { n: 2 })).rejects.toThrow('database: no binding for :labels');
    });

    it('runs more statements at once through query than the pool has connections, and a failing one rejects with its code', async () => {
      await migrate(db, [createTable('many')]);
      const insert = `insert into ${db.schema}.many (label) values (?) returning label`;
      const labels = Array.from({ length: 40 }, (_, i) => `l${i}`);
      expect(await Promise.all(labels.map((l) => db.query(insert, [l])))).toEqual(labels.map((label) => [{ label }]));
      const failing = `insert into ${db.schema}.many (id, label) values (?, ?)`;
      const [{ id }] = (await db.query<{ id: number }>(`select min(id)::int as id from ${db.schema}.many where label = ?`, ['l0'])) as [
        { id: number },
      ];
      const results = await Promise.allSettled(labels.map(() => db.query(failing, [id, 'again'])));
      expect(results.every((r) => r.status === 'rejected' && (r.reason as { code?: string }).code === '23505')).toBe(true);
      // The connections that carried the failures serve the next statements.
      expect(await db.query(`select count(*)::int as n from ${db.schema}.many where label like ?`, ['l%'])).toEqual([{ n: 40 }]);
    });

    it('names a table for raw SQL quoted, so a keyword schema (the all-in-one’s `order`) runs too', async () => {
      expect(db.qualified('items')).toBe(`"${db.schema}"."items"`);
      expect(db.qualified('we"ird')).toBe(`"${db.schema}"."we""ird"`);
      if (!keywordSchema) return;
      const keyword = engine.forSchema(keywordSchema);
      await migrate(keyword, [createTable('items')]);
      try {
        await keyword.query(`insert into ${keyword.qualified('items')} (label) values (?)`, ['kept']);
        expect(await keyword.query(`select label from ${keyword.qualified('items')} where label = ?`, ['kept'])).toEqual([
          { label: 'kept' },
        ]);
        // Unquoted, the keyword is a syntax error: what the helper is for.
        await expect(keyword.query(`select label from ${keyword.schema}.items where label = ?`, ['kept'])).rejects.toThrow(/syntax error/);
      } finally {
        await keyword.knex.raw('drop schema if exists ?? cascade', [keywordSchema]);
      }
    });

    it('answers ping while the engine is open', async () => {
      await expect(db.ping()).resolves.toBeUndefined();
      expect(db.engine).toBe(engine.engine);
    });
  });
}
