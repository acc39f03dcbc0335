import { randomUUID } from 'node:crypto';
import type { DbEngine } from '@commerce/shared-db';
import type { StockClient } from '@commerce/catalog-contracts';
import { catalogHarness, type CatalogHarness } from './testing/catalog-harness';
import { soapProduct } from './testing/soap-product.fixture';
import { createStockRepository } from './stock.knex-repository';

/** Stock holds of the checkout saga through the StockClient, on PGlite (unit) and Postgres (int). */
export function stockHoldsContract(name: string, engine: () => DbEngine) {
  describe(`stock holds on ${name}`, () => {
    let h: CatalogHarness;
    let stock: StockClient;
    let now: Date;
    /** Item ids by sku: CAFE-BRN-S has 4, CAFE-BRN-M 5 (two warehouses), CAFE-OAT-S 1. */
    const items = new Map<string, string>();
    const stockOf = async (sku: string) =>
      Number(
        (
          await h.db
            .table('items')
            .where({ id: items.get(sku)! })
            .first()
        ).stock,
      );
    const hold = (lines: Array<[string, number]>, selectionId: string = randomUUID(), attemptId: string = randomUUID()) =>
      stock.holdStock({
        attemptId,
        selectionId,
        lines: lines.map(([sku, quantity]) => ({ item: items.get(sku)!, quantity })),
        ttlSeconds: 600,
      });

    beforeEach(async () => {
      h = await catalogHarness(engine());
      now = new Date('2026-03-01T12:00:00Z');
      stock = createStockRepository(h.db, { now: () => now });
      await h.catalog.applyProductUpsert(soapProduct());
      items.clear();
      for (const row of (await h.db.table('items').select('id', 'sku')) as Array<{ id: string; sku: string }>) items.set(row.sku, row.id);
      await h.takeEvents();
    }, 60_000);

    // Every path that moves a hold in or out of `held` moves its item's counter with it (decision 151).
    afterEach(async () => {
      const counters = (await h.db.table('items').select('id', 'held')) as Array<{ id: string; held: number }>;
      const holds = (await h.db
        .table('stock_holds')
        .where({ state: 'held' })
        .groupBy('item_id')
        .select('item_id', h.db.knex.raw('sum(quantity)::int as quantity'))) as Array<{ item_id: string; quantity: number }>;
      const live = new Map(holds.map((r) => [r.item_id, Number(r.quantity)]));
      expect(counters.map((r) => [r.id, Number(r.held)])).toEqual(counters.map((r) => [r.id, live.get(r.id) ?? 0]));
    });

    it('holds what is there; beyond it answers the unavailable quantities (unavailable + available = asked) and holds nothing', async () => {
      expect(await hold([['CAFE-BRN-S', 3]])).toEqual({ held: true });
      const refused = await hold([
        ['CAFE-BRN-S', 2],
        ['CAFE-OAT-S', 1],
      ]);
      expect(refused).toEqual({
        held: false,
        unavailable: [
          {
            item: items.get('CAFE-BRN-S'),
            product: items.get('CAFE-BRN-S')!.split('-')[0],
            originalQuantity: 2,
            unavailable: 1,
            available: 1,
          },
        ],
      });
      // Nothing of the refused attempt was held: the one CAFE-OAT-S is still there.
      expect(await hold([['CAFE-OAT-S', 1]])).toEqual({ held: true });
      expect(await stockOf('CAFE-BRN-S')).toBe(4);
    });

    it('a released, an expired or a replaced hold no longer counts', async () => {
      const selection = randomUUID();
      const first = randomUUID();
      await hold([['CAFE-BRN-S', 4]], selection, first);
      expect((await hold([['CAFE-BRN-S', 1]])).held).toBe(false);
      await stock.releaseStock(first);
      expect((await hold([['CAFE-BRN-S', 4]], selection)).held).toBe(true);
      // A newer attempt for the same selection replaces the older one's hold.
      expect((await hold([['CAFE-BRN-S', 4]], selection)).held).toBe(true);
      expect((await hold([['CAFE-BRN-S', 1]])).held).toBe(false);
      now = new Date(now.getTime() + 601_000);
      expect((await hold([['CAFE-BRN-S', 4]])).held).toBe(true);
    });

    it('holding again for one attempt answers the first hold', async () => {
      const attempt = randomUUID();
      const selection = randomUUID();
      expect(await hold([['CAFE-OAT-S', 1]], selection, attempt)).toEqual({ held: true });
      expect(await hold([['CAFE-OAT-S', 1]], selection, attempt)).toEqual({ held: true });
      expect((await hold([['CAFE-OAT-S', 1]])).held).toBe(false);
    });

    it('concurrent holds of the last items: exactly as many as there are succeed', async () => {
      const results = await Promise.all(Array.from({ length: 12 }, () => hold([['CAFE-BRN-S', 1]])));
      expect(results.filter((r) => r.held)).toHaveLength(4);
    });

    it('a hold of several items is one statement, all or nothing; a commit is its read and one guarded write (issue 28)', async () => {
      const sent: string[] = [];
      const listen = (query: { sql: string }) =>
        void sent.push(
          query.sql
            .trim()
            .split(/[\s;]+/)[0]!
            .toLowerCase(),
        );
      const statementsOf = async (run: () => Promise<unknown>) => {
        sent.length = 0;
        h.db.knex.on('query', listen);
        try {
          await run();
        } finally {
          h.db.knex.off('query', listen);
        }
        return [...sent];
      };
      // One short of three: nothing held, no counter moved (the afterEach checks every counter), no transaction.
      expect(
        await statementsOf(async () =>
          expect(
            await hold([
              ['CAFE-BRN-S', 1],
              ['CAFE-BRN-M', 9],
              ['CAFE-OAT-S', 1],
            ]),
          ).toMatchObject({ held: false }),
        ),
      ).toEqual(['with', 'select']);
      const attempt = randomUUID();
      expect(
        await statementsOf(async () =>
          expect(
            await hold(
              [
                ['CAFE-BRN-S', 1],
                ['CAFE-BRN-M', 2],
                ['CAFE-OAT-S', 1],
              ],
              randomUUID(),
              attempt,
            ),
          ).toEqual({ held: true }),
        ),
      ).toEqual(['with']);
      // Its read, then the write guarded by what it read: no transaction.
      expect(await statementsOf(async () => expect(await stock.commitStock(attempt)).toEqual({ committed: 3 }))).toEqual(['with', 'with']);
      expect([await stockOf('CAFE-BRN-S'), await stockOf('CAFE-BRN-M'), await stockOf('CAFE-OAT-S')]).toEqual([3, 3, 0]);
      // Committed already: the read alone finds nothing to do.
      expect(await statementsOf(async () => expect(await stock.commitStock(attempt)).toEqual({ committed: 0 }))).toEqual(['with']);
    });

    it('a hold of the same items between a commit’s read and its write moves only their counters: the write goes on, no lock first (decision 183)', async () => {
      const attempt = randomUUID();
      await hold(
        [
          ['CAFE-BRN-S', 1],
          ['CAFE-BRN-M', 2],
        ],
        randomUUID(),
        attempt,
      );
      const sent: string[] = [];
      let between: Promise<unknown> | undefined;
      const listen = (query: { sql: string }) => {
        const sql = query.sql.trim().toLowerCase();
        sent.push(sql.startsWith('with named') ? 'read' : sql.startsWith('with expected') ? 'write' : sql.split(/[\s;]+/)[0]!);
        // Another selection holds the same items while the commit's read runs: asked before the write, it goes first.
        if (sql.startsWith('with named') && !between)
          between = hold([
            ['CAFE-BRN-S', 1],
            ['CAFE-BRN-M', 1],
          ]);
      };
      h.db.knex.on('query', listen);
      try {
        expect(await stock.commitStock(attempt)).toEqual({ committed: 2 });
        expect(await between).toEqual({ held: true });
      } finally {
        h.db.knex.off('query', listen);
      }
      // The commit's read and its one write (the hold's statement beside them): no transaction, no locking read.
      expect(sent.filter((s) => s !== 'with')).toEqual(['read', 'write']);
      expect([await stockOf('CAFE-BRN-S'), await stockOf('CAFE-BRN-M')]).toEqual([3, 3]);
      // The other selection's hold still counts (the afterEach checks every counter against the live holds).
      expect((await hold([['CAFE-BRN-S', 3]])).held).toBe(false);
    });

    it('a commit whose item another commit lowered between its read and its write writes once more with what it found, no read, no lock first', async () => {
      const [first, second] = [randomUUID(), randomUUID()];
      await hold([['CAFE-BRN-M', 2]], randomUUID(), first);
      await hold([['CAFE-BRN-M', 1]], randomUUID(), second);
      const sent: string[] = [];
      let beside: Promise<unknown> | undefined;
      const listen = (query: { sql: string }) => {
        const sql = query.sql.trim().toLowerCase();
        sent.push(sql.startsWith('with named') ? 'read' : sql.startsWith('with expected') ? 'write' : sql.split(/[\s;]+/)[0]!);
        if (sql.startsWith('with named') && !beside) beside = stock.commitStock(second);
      };
      h.db.knex.on('query', listen);
      try {
        expect(await stock.commitStock(first)).toEqual({ committed: 1 });
        expect(await beside).toEqual({ committed: 1 });
      } finally {
        h.db.knex.off('query', listen);
      }
      // The one whose stock moved wrote again with what its failed write found, without reading again (on PGlite, which
      // runs them in turn, always: two reads and three writes; on Postgres when the other's write came between), never
      // a transaction.
      expect(sent).not.toContain('begin');
      expect(sent.filter((s) => s === 'read')).toEqual(['read', 'read']);
      const writes = sent.filter((s) => s === 'write').length;
      if (engine().engine === 'pglite') expect(writes).toBe(3);
      else expect(writes).toBeGreaterThanOrEqual(2);
      expect(await stockOf('CAFE-BRN-M')).toBe(2);
    });

    it('a commit decrements the stock once, however often and concurrently it is called, and re-publishes the product', async () => {
      const attempt = randomUUID();
      await hold(
        [
          ['CAFE-BRN-S', 3],
          ['CAFE-BRN-M', 5],
        ],
        randomUUID(),
        attempt,
      );
      const commits = await Promise.all(Array.from({ length: 10 }, () => stock.commitStock(attempt)));
      expect(commits.map((c) => c.committed).sort()).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 2]);
      expect(await stockOf('CAFE-BRN-S')).toBe(1);
      expect(await stockOf('CAFE-BRN-M')).toBe(0);
      expect(await h.takeEvents()).toHaveLength(1);
      // The items' new quantities on catalog.stock.v1 (the SOAP feed's stock events), once: one StockCommitted.
      const stockEvents = (
        (await h.db.table('outbox').where({ topic: 'catalog.stock.v1' }).orderBy('seq').select('envelope')) as Array<{ envelope: unknown }>
      ).map(
        (r) =>
          (typeof r.envelope === 'string' ? JSON.parse(r.envelope) : r.envelope) as {
            type: string;
            key: string;
            payload: { products: Array<{ items: unknown[] }> };
          },
      );
      expect(stockEvents.filter((e) => e.type === 'StockCommitted')).toHaveLength(1);
      expect(stockEvents.at(-1)).toMatchObject({ type: 'StockCommitted', key: 'stock-commits' });
      expect(stockEvents.at(-1)!.payload.products).toHaveLength(1);
      expect(stockEvents.at(-1)!.payload.products[0]!.items).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ sku: 'CAFE-BRN-S', qty: 1 }),
          expect.objectContaining({ sku: 'CAFE-BRN-M', qty: 0 }),
        ]),
      );
      expect(stockEvents.at(-1)!.payload.products[0]!.items).toHaveLength(2);
      // The committed quantities are gone from the stock, not held twice.
      expect((await hold([['CAFE-BRN-S', 1]])).held).toBe(true);
      expect((await hold([['CAFE-BRN-S', 1]])).held).toBe(false);
      // Released after a commit: nothing changes.
      await stock.releaseStock(attempt);
      expect(await stockOf('CAFE-BRN-S')).toBe(1);
    });

    it('a commit that sells nothing out publishes the quantities only: no ProductUpserted, nothing to re-read or re-index', async () => {
      const stockEvents = async () =>
        (
          (await h.db.table('outbox').where({ topic: 'catalog.stock.v1' }).orderBy('seq').select('envelope')) as Array<{
            envelope: unknown;
          }>
        ).map(
          (r) =>
            (typeof r.envelope === 'string' ? JSON.parse(r.envelope) : r.envelope) as {
              payload: { products: Array<Record<string, unknown>> };
            },
        );
      const seen = (await stockEvents()).length;
      const attempt = randomUUID();
      await hold([['CAFE-BRN-S', 3]], randomUUID(), attempt);
      expect(await stock.commitStock(attempt)).toEqual({ committed: 1 });
      expect(await stockOf('CAFE-BRN-S')).toBe(1);
      // The listing and the index show CAFE-BRN-S in stock before and after: the product is not re-published.
      expect(await h.takeEvents()).toEqual([]);
      const [quiet, ...more] = (await stockEvents()).slice(seen);
      expect(more).toEqual([]);
      expect(quiet!.payload.products).toHaveLength(1);
      expect(quiet!.payload.products[0]).toMatchObject({
        republished: false,
        items: [expect.objectContaining({ sku: 'CAFE-BRN-S', qty: 1 })],
      });
      // The last one sold: the product is re-published (its size no longer available), its StockChanged says nothing more.
      const last = randomUUID();
      await hold([['CAFE-BRN-S', 1]], randomUUID(), last);
      expect(await stock.commitStock(last)).toEqual({ committed: 1 });
      expect(await h.takeEvents()).toEqual([items.get('CAFE-BRN-S')!.split('-')[0]]);
      const [soldOut] = (await stockEvents()).slice(seen + 1);
      expect(soldOut!.payload.products[0]).not.toHaveProperty('republished');
      expect(soldOut!.payload.products[0]).toMatchObject({ items: [expect.objectContaining({ sku: 'CAFE-BRN-S', qty: 0 })] });
    });

    it('a commit does not count the expired holds of other attempts', async () => {
      expect((await hold([['CAFE-BRN-S', 4]])).held).toBe(true);
      now = new Date(now.getTime() + 300_000);
      await h.db
        .table('items')
        .where({ id: items.get('CAFE-BRN-S')! })
        .update({ stock: 5 });
      const attempt = randomUUID();
      expect(await hold([['CAFE-BRN-S', 1]], randomUUID(), attempt)).toEqual({ held: true });
      await h.db
        .table('items')
        .where({ id: items.get('CAFE-BRN-S')! })
        .update({ stock: 4 });
      // The first hold expired; the second is live and the 4 there cover it.
      now = new Date(now.getTime() + 301_000);
      expect(await stock.commitStock(attempt)).toEqual({ committed: 1 });
      expect(await stockOf('CAFE-BRN-S')).toBe(3);
      expect(await hold([['CAFE-BRN-S', 3]])).toEqual({ held: true });
    });

    it('an expired hold is committed when its stock is still there (re-taken), once', async () => {
      const attempt = randomUUID();
      await hold([['CAFE-BRN-S', 3]], randomUUID(), attempt);
      now = new Date(now.getTime() + 3_600_000);
      expect(await stock.commitStock(attempt)).toEqual({ committed: 1 });
      expect(await stock.commitStock(attempt)).toEqual({ committed: 0 });
      expect(await stockOf('CAFE-BRN-S')).toBe(1);
      expect(await stock.commitStock(randomUUID())).toEqual({ committed: 0 });
    });

    it('an expired hold whose stock was sold meanwhile is lost: nothing taken, the missing quantities, the same answer ever after', async () => {
      const late = randomUUID();
      await hold(
        [
          ['CAFE-BRN-S', 3],
          ['CAFE-OAT-S', 1],
        ],
        randomUUID(),
        late,
      );
      now = new Date(now.getTime() + 3_600_000);
      // Another visitor holds and buys 2 of the 4 once the first hold expired.
      const other = randomUUID();
      expect(await hold([['CAFE-BRN-S', 2]], randomUUID(), other)).toEqual({ held: true });
      expect(await stock.commitStock(other)).toEqual({ committed: 1 });
      const expected = {
        committed: 0,
        unavailable: [
          {
            item: items.get('CAFE-BRN-S'),
            product: items.get('CAFE-BRN-S')!.split('-')[0],
            originalQuantity: 3,
            unavailable: 1,
            available: 2,
          },
        ],
      };
      expect(await stock.commitStock(late)).toEqual(expected);
      expect(await stockOf('CAFE-BRN-S')).toBe(2);
      expect(await stockOf('CAFE-OAT-S')).toBe(1);
      // The ERP raises the stock again: the lost hold stays lost (its payment is voided meanwhile).
      await h.db
        .table('items')
        .where({ id: items.get('CAFE-BRN-S')! })
        .update({ stock: 10 });
      const again = await Promise.all([stock.commitStock(late), stock.commitStock(late)]);
      expect(again).toEqual([expected, expected]);
      expect(await stockOf('CAFE-BRN-S')).toBe(10);
    });

    it('a live hold whose stock the ERP lowered meanwhile is lost too: the stock never goes below 0', async () => {
      const attempt = randomUUID();
      await hold([['CAFE-BRN-S', 4]], randomUUID(), attempt);
      await h.db
        .table('items')
        .where({ id: items.get('CAFE-BRN-S')! })
        .update({ stock: 1 });
      expect(await stock.commitStock(attempt)).toMatchObject({
        committed: 0,
        unavailable: [{ originalQuantity: 4, unavailable: 3, available: 1 }],
      });
      expect(await stockOf('CAFE-BRN-S')).toBe(1);
    });

    it('counts items in the size table’s stockdivisor: holds what whole items the units make, a commit takes that many units each (decision 22)', async () => {
      // Size S in a table of pairs: CAFE-BRN-S's 4 units are 2 items, CAFE-OAT-S's 1 unit none.
      await h.catalog.applySizeUpsert({ id: 'S-S', sizetable: { id: 'ST-PAIRS', stockdivisor: '2', stockunit: 'pair' } });
      expect(await hold([['CAFE-OAT-S', 1]])).toMatchObject({
        held: false,
        unavailable: [{ originalQuantity: 1, unavailable: 1, available: 0 }],
      });
      expect(await hold([['CAFE-BRN-S', 3]])).toMatchObject({
        held: false,
        unavailable: [{ originalQuantity: 3, unavailable: 1, available: 2 }],
      });
      const attempt = randomUUID();
      expect(await hold([['CAFE-BRN-S', 1]], randomUUID(), attempt)).toEqual({ held: true });
      expect(await hold([['CAFE-BRN-S', 2]])).toMatchObject({ held: false, unavailable: [{ available: 1 }] });
      expect(await stock.commitStock(attempt)).toEqual({ committed: 1 });
      expect(await stockOf('CAFE-BRN-S')).toBe(2);
      expect(await hold([['CAFE-BRN-S', 1]])).toEqual({ held: true });
      expect((await hold([['CAFE-BRN-S', 1]])).held).toBe(false);
      // Size M (no table) still counts one unit an item.
      expect(await hold([['CAFE-BRN-M', 5]])).toEqual({ held: true });
    });
  });
}
