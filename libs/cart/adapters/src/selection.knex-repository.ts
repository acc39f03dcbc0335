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
      // One round trip: the selection and its lines (none: one row with null line columns).
      const rows = (await db
        .table('selections as s')
        .leftJoin(`${db.schema}.selection_lines as l`, 'l.selection_id', 's.id')
        .where({ 's.id': id, 's.status': 'open' })
        .orderBy('l.seq')
        .select(
          's.id',
          's.status',
          's.currency',
          's.country',
          's.state',
          's.language',
          's.payment_method',
          'l.line',
          'l.item',
          'l.product',
          'l.size',
          'l.sku',
          'l.ean',
          'l.product_name',
          'l.brand_name',
          'l.quantity',
          'l.price_each',
        )) as Array<SelectionRow & Partial<LineRow> & { line: string | null }>;
      const row = rows[0];
      if (!row) return null;
      const selection: Selection = {
        id: row.id,
        status: row.status,
        currency: row.currency,
        country: row.country,
        state: row.state,
        language: row.language,
        paymentMethod: row.payment_method,
        lines: rows
          .filter((l) => l.line !== null)
          .map((l): SelectionLine => ({
            line: l.line!,
            item: l.item!,
            product: l.product!,
            size: l.size!,
            sku: l.sku!,
            ean: l.ean!,
            productName: l.product_name!,
            brandName: l.brand_name!,
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
