import { enqueue } from '@commerce/shared-bus';
import { stockCommitEvents } from '@commerce/catalog-core';
import { retryContended, type Db, type Knex } from '@commerce/shared-db';
import {
  itemIdParts,
  type CommitStockResult,
  type HoldStockResult,
  type StockClient,
  type UnavailableEntry,
} from '@commerce/catalog-contracts';

interface ItemRow {
  id: string;
  /** In the ERP's units; one item takes `divisor` of them. */
  stock: number;
  divisor: number;
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
 * Holds count items; the stock is in the ERP's units, `stockdivisor` of them an item (decision 22): an
 * item's stock holds floor(stock / divisor) items, and a committed item takes `divisor` units.
 */
export function createStockRepository(db: Db, options: { now?: () => Date; onCommitted?: () => void } = {}): StockClient {
  const now = () => (options.now ?? (() => new Date()))();
  const q = (name: string) => `${db.schema}.${name}`;
  /** One transaction, run again when Postgres gives it up for a deadlock or a serialization failure (DESIGN §8). */
  const contended = <T>(fn: (trx: Knex.Transaction) => Promise<T>) => retryContended(() => db.transaction(fn));

  // The divisor as the projection reads it (`stockDivisorOf`): the variation's size table, else the size's, else 1.
  const lockItems = (trx: Knex.Transaction, ids: string[]) =>
    trx
      .select(
        'i.id',
        'i.stock',
        'i.preorder',
        'i.variant_id',
        'v.external_id as variant_external_id',
        trx.raw('coalesce(vt.stock_divisor, st.stock_divisor, 1)::int as divisor'),
      )
      .from(`${q('items')} as i`)
      .join(`${q('variants')} as v`, 'v.id', 'i.variant_id')
      .join(`${q('sizes')} as s`, 's.id', 'i.size_id')
      .leftJoin(`${q('size_tables')} as vt`, 'vt.external_id', 'v.size_table_external_id')
      .leftJoin(`${q('size_tables')} as st`, 'st.external_id', 's.size_table_external_id')
      .whereIn('i.id', ids)
      .orderBy('i.id')
      .forUpdate('i') as Promise<ItemRow[]>;

  /**
   * What of `wanted` (item → quantity) the items' stock does not cover beside the live holds of other
   * attempts (`except`); preorder items and variants in an open delivery window are not limited.
   */
  const shortOf = async (trx: Knex.Transaction, items: Map<string, ItemRow>, wanted: Map<string, number>, at: Date, except?: string) => {
    const ids = [...wanted.keys()];
    const liveHolds = db.table('stock_holds', trx).whereIn('item_id', ids).andWhere({ state: 'held' }).andWhere('expires_at', '>', at);
    if (except) liveHolds.whereNot({ attempt_id: except });
    const held = new Map(
      (
        (await liveHolds.groupBy('item_id').select('item_id', trx.raw('sum(quantity)::int as quantity'))) as Array<{
          item_id: string;
          quantity: number;
        }>
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
      const available = item ? Math.max(0, Math.floor(item.stock / Math.max(1, Number(item.divisor))) - (held.get(itemId) ?? 0)) : 0;
      if (quantity > available)
        unavailable.push({
          item: itemId,
          product: item ? String(item.variant_id) : itemIdParts(itemId).product,
          originalQuantity: quantity,
          unavailable: quantity - available,
          available,
        });
    }
    return unavailable;
  };

  /** The entries a lost hold answered when it was lost (the quantities missing then). */
  const lostEntries = async (trx: Knex.Transaction, lost: Array<{ item_id: string; quantity: number; unavailable: number | null }>) => {
    const variants = new Map(
      (
        (await db
          .table('items', trx)
          .whereIn(
            'id',
            lost.map((h) => h.item_id),
          )
          .select('id', 'variant_id')) as Array<{ id: string; variant_id: number }>
      ).map((r) => [r.id, String(r.variant_id)]),
    );
    return lost
      .filter((h) => (h.unavailable ?? 0) > 0)
      .map((h) => ({
        item: h.item_id,
        product: variants.get(h.item_id) ?? itemIdParts(h.item_id).product,
        originalQuantity: h.quantity,
        unavailable: h.unavailable!,
        available: h.quantity - h.unavailable!,
      }));
  };

  return {
    async holdStock(command): Promise<HoldStockResult> {
      const wanted = new Map<string, number>();
      for (const line of command.lines) wanted.set(line.item, (wanted.get(line.item) ?? 0) + line.quantity);
      const at = now();
      return contended(async (trx) => {
        const existing = await db.table('stock_holds', trx).where({ attempt_id: command.attemptId }).first();
        if (existing) return { held: true };
        const ids = [...wanted.keys()].sort();
        const items = new Map((await lockItems(trx, ids)).map((r) => [r.id, r]));
        // A newer attempt for the selection replaces the older ones' holds (after the locks: same order as every hold).
        await db
          .table('stock_holds', trx)
          .where({ selection_id: command.selectionId, state: 'held' })
          .update({ state: 'released', updated_at: at });
        const unavailable = await shortOf(trx, items, wanted, at);
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
      await retryContended(() =>
        db.table('stock_holds').where({ attempt_id: attemptId, state: 'held' }).update({ state: 'released', updated_at: now() }),
      );
    },

    async commitStock(attemptId): Promise<CommitStockResult> {
      const at = now();
      const result = await contended(async (trx): Promise<CommitStockResult> => {
        // The items first, then the holds, as a hold takes them (items, then the selection's older holds it
        // replaces): the other order deadlocked a commit beside a new payment of the same selection. The
        // attempt's item ids never change, so they are read before any lock.
        const itemIds = (
          (await db.table('stock_holds', trx).where({ attempt_id: attemptId }).distinct('item_id')) as Array<{ item_id: string }>
        ).map((r) => r.item_id);
        if (itemIds.length === 0) return { committed: 0 };
        const locked = await lockItems(trx, itemIds.sort());
        // Locks the attempt's holds: a concurrent commit waits here, then finds them committed (or lost).
        const all = (await db.table('stock_holds', trx).where({ attempt_id: attemptId }).orderBy('item_id').forUpdate()) as Array<{
          item_id: string;
          quantity: number;
          state: string;
          unavailable: number | null;
        }>;
        const lost = all.filter((h) => h.state === 'lost');
        if (lost.length > 0) return { committed: 0, unavailable: await lostEntries(trx, lost) };
        const holds = all.filter((h) => h.state !== 'committed');
        if (holds.length === 0) return { committed: 0 };
        const pending = new Set(holds.map((h) => h.item_id));
        const items = locked.filter((i) => pending.has(i.id));
        // The stock must still be there beside the other attempts' live holds: a hold that expired or was
        // replaced may have been sold meanwhile, and then the order is not placed (never oversold).
        const unavailable = await shortOf(
          trx,
          new Map(items.map((i) => [i.id, i])),
          new Map(holds.map((h) => [h.item_id, h.quantity])),
          at,
          attemptId,
        );
        if (unavailable.length > 0) {
          for (const hold of holds) {
            const short = unavailable.find((u) => u.item === hold.item_id)?.unavailable ?? 0;
            await db
              .table('stock_holds', trx)
              .where({ attempt_id: attemptId, item_id: hold.item_id })
              .update({ state: 'lost', unavailable: short, updated_at: at });
          }
          return { committed: 0, unavailable };
        }
        const divisors = new Map(items.map((i) => [i.id, Math.max(1, Number(i.divisor))]));
        for (const hold of holds)
          await db
            .table('items', trx)
            .where({ id: hold.item_id })
            .update({ stock: trx.raw('greatest(stock - ?, 0)', [hold.quantity * (divisors.get(hold.item_id) ?? 1)]) });
        await db
          .table('stock_holds', trx)
          .where({ attempt_id: attemptId })
          .whereNot({ state: 'committed' })
          .update({ state: 'committed', updated_at: at });
        // The items' new quantities go on catalog.stock.v1 (the SOAP feed's stock events), per product; the
        // product is re-published (the indexer re-reads it) only when one of its items sold out.
        const changed = (await trx
          .select(
            'i.id',
            'i.stock',
            'i.sku',
            'i.ean',
            'v.external_id as variation',
            's.external_id as size',
            'p.id as product_id',
            'p.external_id',
          )
          .from(`${q('items')} as i`)
          .join(`${q('variants')} as v`, 'v.id', 'i.variant_id')
          .join(`${q('products')} as p`, 'p.id', 'v.product_id')
          .join(`${q('sizes')} as s`, 's.id', 'i.size_id')
          .whereIn(
            'i.id',
            items.map((i) => i.id),
          )
          .orderBy(['p.id', 'i.id'])) as Array<{
          id: string;
          stock: number;
          sku: string;
          ean: string;
          variation: string;
          size: string;
          product_id: number;
          external_id: string;
        }>;
        const before = new Map(items.map((i) => [i.id, i]));
        await enqueue(
          db,
          trx,
          stockCommitEvents(
            changed.map((r) => {
              const locked = before.get(r.id)!;
              return {
                productId: Number(r.product_id),
                externalId: r.external_id,
                variation: r.variation,
                size: r.size,
                sku: r.sku,
                ean: r.ean,
                stockBefore: Number(locked.stock),
                stockAfter: Number(r.stock),
                divisor: Number(locked.divisor),
                preorder: Boolean(locked.preorder),
              };
            }),
          ),
        );
        return { committed: holds.length };
      });
      if (result.committed > 0) options.onCommitted?.();
      return result;
    },
  };
}
