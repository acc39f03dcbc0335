import type { CatalogRepository, CatalogUnitOfWork, Product, ProductView } from '@commerce/catalog-core';
import { enqueue } from '@commerce/shared-bus';
import type { Db, Knex } from '@commerce/shared-db';
import { createBrandsAndCollectionsRepository, refsById } from './brands-and-collections.knex-repository';
import { categoriesInTreeOrder, categoriesWithAncestors, categoryIdOfUri, createCategoriesRepository } from './categories.knex-repository';
import { chunks, groupBy, table, type SqlScope } from './catalog-sql';
import { createDeliveryWindowsRepository, deliveryWindowSpans } from './delivery-windows.knex-repository';
import { createMarketsAndWarehousesRepository } from './markets-and-warehouses.knex-repository';
import { createPricesRepository, findPricelist, pricesOfProducts } from './prices.knex-repository';
import { createProductsRepository, loadProducts } from './products.knex-repository';
import { createSizesRepository, sizeTablesByExternalId } from './sizes.knex-repository';

/**
 * The catalog's store in knex: one code path for Postgres and PGlite, every table in the catalog schema.
 * A unit of work is one transaction that every aggregate's repository and the outbox write in, so an
 * upsert's state and its events commit together. Bound to `outer`, its `transaction` joins that
 * transaction instead of opening one (a consumer's dedupe record, the state change and the outbox rows
 * then commit together).
 */
export function createCatalogRepository(db: Db, outer?: Knex.Transaction): CatalogRepository {
  const reads: SqlScope = { db };
  const unitOfWork = (trx: Knex.Transaction): CatalogUnitOfWork => ({
    products: createProductsRepository(db, trx),
    brandsAndCollections: createBrandsAndCollectionsRepository(db, trx),
    categories: createCategoriesRepository(db, trx),
    sizes: createSizesRepository(db, trx),
    marketsAndWarehouses: createMarketsAndWarehousesRepository(db, trx),
    prices: createPricesRepository(db, trx),
    deliveryWindows: createDeliveryWindowsRepository(db, trx),
    outbox: { publish: (events) => enqueue(db, trx, events) },
  });

  /** What a product's view adds to it (brands, collections, categories, size tables, prices, delivery windows). */
  async function views(products: Product[]): Promise<ProductView[]> {
    if (products.length === 0) return [];
    const tableIds = [
      ...new Set(products.flatMap((p) => p.variants.flatMap((v) => [v.sizeTableExternalId, ...v.items.map((i) => i.sizeTableExternalId)]))),
    ].filter((id): id is string => id !== null);
    const variationIds = [...new Set(products.flatMap((p) => p.variants.map((v) => v.externalId)))];
    // Independent reads, at once: on Postgres each is a round trip of its own (on PGlite they queue).
    const [brands, collections, categories, sizeTables, { prices, pricelists }, windows] = await Promise.all([
      refsById(
        reads,
        'brand',
        products.map((p) => p.brandId),
      ),
      refsById(
        reads,
        'collection',
        products.map((p) => p.collectionId),
      ),
      categoriesWithAncestors(
        reads,
        products.flatMap((p) => [...(p.categoryId === null ? [] : [p.categoryId]), ...p.variants.flatMap((v) => v.categoryIds)]),
      ),
      sizeTablesByExternalId(reads, tableIds),
      pricesOfProducts(
        reads,
        products.map((p) => p.externalId),
      ),
      deliveryWindowSpans(reads, variationIds),
    ]);
    // Grouped once: a SOAP batch's run views a thousand products at a time.
    const pricesOf = groupBy(prices, (p) => p.productExternalId);
    return products.map((product): ProductView => {
      const variantIds = new Set(product.variants.map((v) => v.externalId));
      return {
        product,
        brand: product.brandId === null ? null : (brands.get(product.brandId) ?? null),
        collection: product.collectionId === null ? null : (collections.get(product.collectionId) ?? null),
        categories,
        sizeTables,
        prices: pricesOf.get(product.externalId) ?? [],
        pricelists,
        deliveryWindows: windows.length === 0 ? [] : windows.filter((w) => variantIds.has(w.variationExternalId)),
      };
    });
  }

  return {
    transaction: (work) => (outer ? work(unitOfWork(outer)) : db.transaction((trx) => work(unitOfWork(trx)))),

    async loadProducts(productIds) {
      return views(await loadProducts(reads, productIds));
    },

    productViews: (products) => views(products),

    async productIdsOfVariants(variantIds) {
      if (variantIds.length === 0) return new Map();
      const rows: Array<{ id: number; product_id: number }> = [];
      for (const part of chunks(variantIds))
        rows.push(...((await table(reads, 'variants').whereIn('id', part).select('id', 'product_id')) as typeof rows));
      return new Map(rows.map((r) => [r.id, r.product_id]));
    },

    async listProductIds(afterId, limit) {
      const rows = (await table(reads, 'products').where('id', '>', afterId).orderBy('id').limit(limit).select('id')) as Array<{
        id: number;
      }>;
      return rows.map((r) => r.id);
    },

    async countProducts() {
      const row = (await table(reads, 'products').count<{ n: number | string }[]>({ n: '*' }))[0];
      return Number(row?.n ?? 0);
    },

    listCategories: () => categoriesInTreeOrder(reads),

    async findRefs(kind, ids) {
      return [...(await refsById(reads, kind, ids)).values()];
    },

    async findUri(uri) {
      const variant = (await table(reads, 'variants').where({ uri }).first('id')) as { id: number } | undefined;
      return { variantId: variant?.id ?? null, categoryId: await categoryIdOfUri(reads, uri) };
    },

    findPricelist: (externalId) => findPricelist(reads, externalId),
  };
}
