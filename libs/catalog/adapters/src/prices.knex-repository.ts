import type { Pricelist, PricelistItem, PricesRepository } from '@commerce/catalog-core';
import type { Db, Knex } from '@commerce/shared-db';
import { chunks, int, table, type SqlScope } from './catalog-sql';

export interface PricelistItemRow {
  pricelist: string;
  product_external_id: string;
  variation_external_id: string;
  price: number | string;
  price_before_discount: number | string | null;
}

export const toPricelistItem = (r: PricelistItemRow): PricelistItem => ({
  pricelist: r.pricelist,
  productExternalId: r.product_external_id,
  variationExternalId: r.variation_external_id,
  price: int(r.price),
  priceBeforeDiscount: r.price_before_discount === null ? null : int(r.price_before_discount),
});
export const toPricelist = (r: Record<string, string>): Pricelist => ({
  externalId: r['external_id']!,
  store: r['store']!,
  type: r['type']!,
  currency: r['currency']!,
  description: r['description']!,
});

/** A pricelist by the ERP's id; null when never sent. */
export async function findPricelist(scope: SqlScope, externalId: string): Promise<Pricelist | null> {
  const r = await table(scope, 'pricelists').where({ external_id: externalId }).first();
  return r ? toPricelist(r) : null;
}

/** Every price of these products, with the pricelists they are in (what a product's view shows). */
export async function pricesOfProducts(
  scope: SqlScope,
  productExternalIds: string[],
): Promise<{ prices: PricelistItem[]; pricelists: Map<string, Pricelist> }> {
  const prices = ((await table(scope, 'pricelist_items').whereIn('product_external_id', productExternalIds)) as PricelistItemRow[]).map(
    toPricelistItem,
  );
  const pricelistIds = [...new Set(prices.map((p) => p.pricelist))];
  const pricelists = new Map(
    pricelistIds.length
      ? ((await table(scope, 'pricelists').whereIn('external_id', pricelistIds)) as Array<Record<string, string>>).map((r) => [
          r['external_id']!,
          toPricelist(r),
        ])
      : [],
  );
  return { prices, pricelists };
}

/** The pricelists and prices of a unit of work (`trx`). */
export function createPricesRepository(db: Db, trx: Knex.Transaction): PricesRepository {
  const scope: SqlScope = { db, trx };
  const t = (name: string) => db.table(name, trx);
  return {
    findPricelist: (externalId) => findPricelist(scope, externalId),
    async savePricelist(pricelist) {
      await t('pricelists')
        .insert({
          external_id: pricelist.externalId,
          store: pricelist.store,
          type: pricelist.type,
          currency: pricelist.currency,
          description: pricelist.description,
        })
        .onConflict('external_id')
        .merge();
    },
    async items(pricelist, productExternalIds) {
      if (productExternalIds === undefined)
        return ((await t('pricelist_items').where({ pricelist })) as PricelistItemRow[]).map(toPricelistItem);
      const rows: PricelistItemRow[] = [];
      for (const part of chunks(productExternalIds)) {
        rows.push(...((await t('pricelist_items').where({ pricelist }).whereIn('product_external_id', part)) as PricelistItemRow[]));
      }
      return rows.map(toPricelistItem);
    },
    async saveItems(items) {
      const rows = items.map((i) => ({
        pricelist: i.pricelist,
        product_external_id: i.productExternalId,
        variation_external_id: i.variationExternalId,
        price: i.price,
        price_before_discount: i.priceBeforeDiscount,
      }));
      for (const part of chunks(rows)) {
        await t('pricelist_items').insert(part).onConflict(['pricelist', 'product_external_id', 'variation_external_id']).merge();
      }
    },
  };
}
