import type { Db } from '@commerce/shared-db';
import type { Selection, SelectionLine, SelectionRepository } from '@commerce/cart-core';

interface SelectionRow {
  id: string;
  status: 'open' | 'closed';
  currency: string;
  country: string | null;
  state: string | null;
  language: string | null;
  payment_method: string;
}
interface LineRow {
  line: string;
  item: string;
  product: string;
  size: string;
  sku: string;
  ean: string;
  product_name: string;
  brand_name: string;
  quantity: number;
  price_each: string;
}

export function createSelectionRepository(db: Db): SelectionRepository {
  return {
    async create(s) {
      await db.table('selections').insert({
        id: s.id,
        status: s.status,
        currency: s.currency,
        country: s.country,
        state: s.state,
        language: s.language,
        payment_method: s.paymentMethod,
      });
    },

    async findOpen(id) {
      const row = (await db.table('selections').where({ id, status: 'open' }).first()) as SelectionRow | undefined;
      if (!row) return null;
      const lines = (await db.table('selection_lines').where({ selection_id: id }).orderBy('seq')) as LineRow[];
      const selection: Selection = {
        id: row.id,
        status: row.status,
        currency: row.currency,
        country: row.country,
        state: row.state,
        language: row.language,
        paymentMethod: row.payment_method,
        lines: lines.map((l): SelectionLine => ({
          line: l.line,
          item: l.item,
          product: l.product,
          size: l.size,
          sku: l.sku,
          ean: l.ean,
          productName: l.product_name,
          brandName: l.brand_name,
          quantity: Number(l.quantity),
          priceEach: Number(l.price_each),
        })),
      };
      return selection;
    },

    async addLine(selectionId, l) {
      return db.transaction(async (trx) => {
        const open = await db.table('selections', trx).where({ id: selectionId, status: 'open' }).forUpdate().first('id');
        if (!open) return false;
        await db
          .table('selection_lines', trx)
          .insert({
            selection_id: selectionId,
            line: l.line,
            item: l.item,
            product: l.product,
            size: l.size,
            sku: l.sku,
            ean: l.ean,
            product_name: l.productName,
            brand_name: l.brandName,
            quantity: l.quantity,
            price_each: l.priceEach,
          })
          .onConflict(['selection_id', 'item'])
          .merge({ quantity: db.knex.raw('"selection_lines"."quantity" + excluded.quantity') });
        await db.table('selections', trx).where({ id: selectionId }).update({ updated_at: db.knex.fn.now() });
        return true;
      });
    },
  };
}
