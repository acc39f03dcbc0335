import { normaliseSearchQuery } from '@commerce/catalog-core';
import { startRetentionPruner } from '@commerce/shared-bus';
import { createDbEngine, migrate, type Db, type DbEngine } from '@commerce/shared-db';
import { uniqueName } from '@commerce/shared-testing';
import { catalogMigrations } from '../catalog.migrations';
import { SearchQueryStats, searchQueriesRetention } from './search-queries.store';

let engine: DbEngine;
beforeAll(async () => {
  engine = await createDbEngine('pglite://memory');
}, 60_000);
afterAll(() => engine?.close());

const DAY = 86_400_000;
async function freshDb(): Promise<Db> {
  const db = engine.forSchema(uniqueName('catalog'));
  await migrate(db, catalogMigrations);
  return db;
}

describe('what shoppers search for (search_queries)', () => {
  it('normalises a query and keeps nothing that names the shopper', () => {
    expect(normaliseSearchQuery('  Linen   SHIRT ')).toBe('linen shirt');
    expect(normaliseSearchQuery('anna.svensson@example.com')).toBe('<personal>');
    expect(normaliseSearchQuery('call +46 70-123 45 67')).toBe('<personal>');
    expect(normaliseSearchQuery('7351000000002')).toBe('7351000000002');
    expect(normaliseSearchQuery('SKU1019-RED')).toBe('sku1019-red');
    expect([...normaliseSearchQuery('x'.repeat(200))]).toHaveLength(80);
    expect(normaliseSearchQuery('   ')).toBe('');
  });

  it('adds each write to the day’s counts, by query, market and language', async () => {
    const stats = new SearchQueryStats(await freshDb());
    stats.record({ text: 'Linen Shirt', market: '1', language: 'sv', found: 2 });
    stats.record({ text: 'bicycle', market: '1', language: 'sv', found: 0 });
    await stats.flush();
    stats.record({ text: 'linen shirt', market: '1', language: 'sv', found: 2 });
    stats.record({ text: 'linen shirt', market: '2', language: 'de', found: 2 });
    stats.record({ text: '', market: '2', language: 'de', found: 9 });
    await stats.flush();
    expect((await stats.list()).queries).toEqual([
      { query: 'linen shirt', searches: 3, zeroResults: 0 },
      { query: 'bicycle', searches: 1, zeroResults: 1 },
    ]);
    expect((await stats.list({ market: '2' })).queries).toEqual([{ query: 'linen shirt', searches: 1, zeroResults: 0 }]);
    expect((await stats.list({ kind: 'zero' })).queries).toEqual([{ query: 'bicycle', searches: 1, zeroResults: 1 }]);
  });

  it('keeps a day to its bound: the most searched and the most often empty queries', async () => {
    const stats = new SearchQueryStats(await freshDb(), { maxRowsPerDay: 2 });
    const search = (text: string, times: number, found: number) => {
      for (let i = 0; i < times; i++) stats.record({ text, market: '1', language: 'en', found });
    };
    search('shirt', 5, 3);
    search('jeans', 4, 2);
    search('coat', 1, 1);
    search('bicycle', 2, 0);
    search('kettle', 1, 0);
    search('hose', 1, 0);
    await stats.flush();
    expect((await stats.list({ limit: 10 })).queries.map((q) => q.query)).toEqual(['shirt', 'jeans', 'bicycle', 'hose']);
  });

  it('holds a bounded number of distinct queries between two writes; more are counted in the metrics only', async () => {
    const stats = new SearchQueryStats(await freshDb(), { maxPending: 2 });
    for (const text of ['a1', 'a2', 'a3', 'a1']) stats.record({ text, market: '1', language: 'en', found: 1 });
    await stats.flush();
    expect((await stats.list()).queries).toEqual([
      { query: 'a1', searches: 2, zeroResults: 0 },
      { query: 'a2', searches: 1, zeroResults: 0 },
    ]);
    expect(await stats.registry.metrics()).toContain('catalog_search_queries_unrecorded_total 1');
  });

  it('deletes the days past the retention with the retention pruner', async () => {
    const db = await freshDb();
    let now = new Date(Date.now() - 40 * DAY);
    const stats = new SearchQueryStats(db, { now: () => now });
    stats.record({ text: 'old', market: '1', language: 'en', found: 1 });
    await stats.flush();
    now = new Date();
    stats.record({ text: 'new', market: '1', language: 'en', found: 1 });
    await stats.flush();
    const pruner = startRetentionPruner(db, {
      outboxRetentionMs: DAY,
      processedEventsRetentionMs: DAY,
      intervalMs: 3_600_000,
      batchSize: 100,
      tables: [searchQueriesRetention(30 * DAY)],
    });
    expect((await pruner.pruneNow())['search_queries']).toBe(1);
    await pruner.stop();
    expect((await stats.list({ days: 60 })).queries.map((q) => q.query)).toEqual(['new']);
  });
});
