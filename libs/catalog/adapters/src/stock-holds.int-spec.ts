import { randomUUID } from 'node:crypto';
import { createDbEngine, type DbEngine } from '@commerce/shared-db';
import { describeWithEngines } from '@commerce/shared-testing';
import { stockHoldsContract } from './stock-holds.contract';
import { catalogHarness } from './testing/catalog-harness';
import { soapProduct } from './testing/soap-product.fixture';
import { createStockRepository } from './stock.knex-repository';

describeWithEngines('stock holds on Postgres', ['postgres'], ({ url }) => {
  let engine: DbEngine;
  beforeAll(async () => {
    engine = await createDbEngine(url('postgres'));
  });
  afterAll(() => engine?.close());
  stockHoldsContract('Postgres', () => engine);

  // Issue 22's deadlock: a backlog of paid attempts committed (their holds, then their items) beside new
  // payments of the same selections (their items, then the older attempts' holds they replace). Every
  // call must succeed: the locks are taken in one order and a contended transaction is run again.
  it('commits of paid attempts beside new holds of the same selections and overlapping items: no error, stock exact', async () => {
    const h = await catalogHarness(engine);
    await h.catalog.applyProductUpsert(soapProduct());
    await h.db.table('items').update({ stock: 100_000 });
    const ids = ((await h.db.table('items').orderBy('id').select('id')) as Array<{ id: string }>).map((r) => r.id);
    const stock = createStockRepository(h.db);
    const lines = (order: string[]) => order.map((item) => ({ item, quantity: 1 }));
    const hold = (selectionId: string, attemptId: string, order: string[]) =>
      stock.holdStock({ attemptId, selectionId, lines: lines(order), ttlSeconds: 600 });
    const selections = Array.from({ length: 8 }, () => randomUUID());
    const errors: string[] = [];
    let committed = 0;
    for (let round = 0; round < 6; round++) {
      const paid = selections.map(() => randomUUID());
      await Promise.all(selections.map((s, i) => hold(s, paid[i]!, ids)));
      const calls = selections.flatMap((s, i) => [
        stock.commitStock(paid[i]!).then((r) => void (committed += r.committed)),
        // A new payment of the same selection, its lines in another order.
        hold(s, randomUUID(), [...ids].reverse()),
      ]);
      for (const outcome of await Promise.allSettled(calls))
        if (outcome.status === 'rejected') errors.push(String(outcome.reason).slice(-80));
    }
    expect(errors).toEqual([]);
    const left = (await h.db.table('items').whereIn('id', ids).select('stock')) as Array<{ stock: number }>;
    const divisorFree = left.map((r) => Number(r.stock));
    // Each committed hold row took its item once; nothing went below its start.
    expect(divisorFree.every((s) => s <= 100_000 && s >= 0)).toBe(true);
    expect(committed).toBeGreaterThan(0);
  }, 120_000);
});
