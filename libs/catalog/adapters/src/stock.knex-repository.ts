import { enqueue } from '@commerce/shared-bus';
import type { Db, Knex } from '@commerce/shared-db';
import { ProductUpserted, StockChanged, type HoldStockResult, type StockClient, type UnavailableEntry } from '@commerce/catalog-contracts';

interface ItemRow {
  id: string;
  stock: number;
  preorder: boolean;
  variant_id: number;
  variant_external_id: string;
}

/**
 * Stock holds on the catalog's items (the checkout saga). Every decision runs under the row locks of the
 * items concerned (`SELECT … FOR UPDATE`, in item id order so two holds never deadlock): two visitors
 * holding the last item queue, and the second sees the first's hold. Available = stock − live holds;
 * preorder items and variants in an open delivery window are not limited. A commit decrements the stock
 * of the attempt's holds not yet committed and marks them committed in the same transaction, so however
 * often it is called, the stock goes down once; it never goes below 0 (`greatest`, and a check constraint).
 */
export function createStockRepository(db: Db, options: { now?: () => Date; onCommitted?: () => void } = {}): StockClient {
  const now = () => (options.now ?? (() => new Date()))();
  const q = (name: string) => `${db.schema}.${name}`;

  const lockItems = (trx: Knex.Transaction, ids: string[]) =>
    trx
      .select('i.id', 'i.stock', 'i.preorder', 'i.variant_id', 'v.external_id as variant_external_id')
      .from(`${q('items')} as i`)
      .join(`${q('variants')} as v`, 'v.id', 'i.variant_id')
      .whereIn('i.id', ids)
      .orderBy('i.id')
      .forUpdate('i') as Promise<ItemRow[]>;

  return {
    async holdStock(command): Promise<HoldStockResult> {
      const wanted = new Map<string, number>();
      for (const line of command.lines) wanted.set(line.item, (wanted.get(line.item) ?? 0) + line.quantity);
      const at = now();
      return db.transaction(async (trx) => {
        const existing = await db.table('stock_holds', trx).where({ attempt_id: command.attemptId }).first();
        if (existing) return { held: true };
        const ids = [...wanted.keys()].sort();
        const items = new Map((await lockItems(trx, ids)).map((r) => [r.id, r]));
        // A newer attempt for the selection replaces the older ones' holds (after the locks: same order as every hold).
        await db
          .table('stock_holds', trx)
          .where({ selection_id: command.selectionId, state: 'held' })
          .update({ state: 'released', updated_at: at });
        const held = new Map(
          (
            (await db
              .table('stock_holds', trx)
              .whereIn('item_id', ids)
              .andWhere({ state: 'held' })
              .andWhere('expires_at', '>', at)
              .groupBy('item_id')
              .select('item_id', trx.raw('sum(quantity)::int as quantity'))) as Array<{ item_id: string; quantity: number }>
          ).map((r) => [r.item_id, Number(r.quantity)]),
        );
        const variants = [...new Set([...items.values()].map((i) => i.variant_external_id))];
        const open = new Set(
          (
            (await trx
              .select('dwv.variation_external_id')
              .from(`${q('delivery_window_variations')} as dwv`)
              .join(`${q('delivery_windows')} as dw`, 'dw.external_id', 'dwv.window')
              .where('dw.active_indexed', true)
              .whereIn('dwv.variation_external_id', variants)) as Array<{ variation_external_id: string }>
          ).map((r) => r.variation_external_id),
        );
        const unavailable: UnavailableEntry[] = [];
        for (const [itemId, quantity] of wanted) {
          const item = items.get(itemId);
          if (item && (item.preorder || open.has(item.variant_external_id))) continue;
          const available = item ? Math.max(0, item.stock - (held.get(itemId) ?? 0)) : 0;
          if (quantity > available)
            unavailable.push({
              item: itemId,
              product: item ? String(item.variant_id) : itemId.split('-')[0]!,
              originalQuantity: quantity,
              unavailable: quantity - available,
              available,
            });
        }
        if (unavailable.length > 0) return { held: false, unavailable };
        const expiresAt = new Date(at.getTime() + command.ttlSeconds * 1000);
        await db.table('stock_holds', trx).insert(
          ids.map((id) => ({
            attempt_id: command.attemptId,
            item_id: id,
            selection_id: command.selectionId,
            quantity: wanted.get(id)!,
            state: 'held',
            expires_at: expiresAt,
            created_at: at,
            updated_at: at,
          })),
        );
        return { held: true };
      });
    },

    async releaseStock(attemptId) {
      await db.table('stock_holds').where({ attempt_id: attemptId, state: 'held' }).update({ state: 'released', updated_at: now() });
    },

    async commitStock(attemptId) {
      const committed = await db.transaction(async (trx) => {
        // Locks the attempt's holds: a concurrent commit waits here, then finds them committed.
        const holds = (await db
          .table('stock_holds', trx)
          .where({ attempt_id: attemptId })
          .whereNot({ state: 'committed' })
          .orderBy('item_id')
          .forUpdate()) as Array<{ item_id: string; quantity: number }>;
        if (holds.length === 0) return 0;
        const items = await lockItems(
          trx,
          holds.map((h) => h.item_id),
        );
        for (const hold of holds)
          await db
            .table('items', trx)
            .where({ id: hold.item_id })
            .update({ stock: trx.raw('greatest(stock - ?, 0)', [hold.quantity]) });
        await db
          .table('stock_holds', trx)
          .where({ attempt_id: attemptId })
          .whereNot({ state: 'committed' })
          .update({ state: 'committed', updated_at: now() });
        // The products' `inStock` and `stock` follow: the indexer re-reads them. The items' new quantities
        // go on catalog.stock.v1 (the SOAP feed's stock events), per product.
        const changed = (await trx
          .select('i.stock', 'i.sku', 'i.ean', 'v.external_id as variation', 's.external_id as size', 'p.id as product_id', 'p.external_id')
          .from(`${q('items')} as i`)
          .join(`${q('variants')} as v`, 'v.id', 'i.variant_id')
          .join(`${q('products')} as p`, 'p.id', 'v.product_id')
          .join(`${q('sizes')} as s`, 's.id', 'i.size_id')
          .whereIn(
            'i.id',
            items.map((i) => i.id),
          )
          .orderBy(['p.id', 'i.id'])) as Array<{
          stock: number;
          sku: string;
          ean: string;
          variation: string;
          size: string;
          product_id: number;
          external_id: string;
        }>;
        const products = new Map<
          number,
          { externalId: string; items: Array<{ variation: string; size: string; sku: string; ean: string; qty: number }> }
        >();
        for (const r of changed) {
          const product = products.get(r.product_id) ?? { externalId: r.external_id, items: [] };
          product.items.push({ variation: r.variation, size: r.size, sku: r.sku, ean: r.ean, qty: r.stock });
          products.set(r.product_id, product);
        }
        await enqueue(
          db,
          trx,
          [...products].flatMap(([id, p]) => [
            ProductUpserted.create(String(id), { productId: String(id), externalId: p.externalId }),
            StockChanged.create(String(id), { productId: String(id), externalId: p.externalId, items: p.items }),
          ]),
        );
        return holds.length;
      });
      if (committed > 0) options.onCommitted?.();
      return { committed };
    },
  };
}
