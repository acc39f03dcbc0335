import { catalogMigrations, SearchQueryStats } from '@commerce/catalog-adapters';
import { createDbEngine, migrate, type DbEngine } from '@commerce/shared-db';
import { uniqueName } from '@commerce/shared-testing';
import { optionsOf, report, UsageError } from './queries';

let engine: DbEngine;
beforeAll(async () => {
  engine = await createDbEngine('pglite://memory');
}, 60_000);
afterAll(() => engine?.close());

const now = () => new Date('2026-11-27T12:00:00Z');

describe('npm run search:queries', () => {
  it('lists the most searched and the most often empty queries of the days asked for', async () => {
    const db = engine.forSchema(uniqueName('catalog'));
    await migrate(db, catalogMigrations);
    const stats = new SearchQueryStats(db, { now });
    for (const [text, found] of [
      ['Linen shirt', 3],
      ['linen shirt', 0],
      ['skel', 0],
      ['sweater', 5],
    ] as const)
      stats.record({ text, found, market: '1', language: 'en' });
    await stats.flush();
    const printed = await report(db, ['--days', '1', '--limit', '5'], now);
    expect(printed).toBe(
      [
        'Top queries (2026-11-27 to 2026-11-27)',
        'query        searches  zero results',
        'linen shirt         2             1',
        'skel                1             1',
        'sweater             1             0',
        '',
        'Top zero-result queries (2026-11-27 to 2026-11-27)',
        'query        searches  zero results',
        'linen shirt         2             1',
        'skel                1             1',
        '',
      ].join('\n'),
    );
  });

  it('says in one line which option is wrong, as the internal route would', () => {
    expect(() => optionsOf(['--days', 'abc'])).toThrow(new UsageError('--days must be a number'));
    expect(() => optionsOf(['--limit', '0'])).toThrow(/^--limit /);
    expect(() => optionsOf(['--bogus'])).toThrow(/Unknown option '--bogus'/);
    expect(optionsOf(['--days', '30', '--market', '2'])).toEqual({ days: 30, limit: 20, market: '2' });
  });

  it('names the missing table, not the SQL, on a database the catalog has never started on', async () => {
    const db = engine.forSchema(uniqueName('catalog'));
    await expect(report(db, [], now)).rejects.toThrow(
      new UsageError(
        `no table ${db.schema}.search_queries in that database: the catalog creates it when it starts; check DATABASE_URL and DATABASE_SCHEMA`,
      ),
    );
  });
});
