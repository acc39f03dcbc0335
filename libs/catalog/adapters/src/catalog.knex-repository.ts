import type {
  CatalogRef,
  CatalogRepository,
  CatalogUnitOfWork,
  Category,
  DeliveryWindowSpan,
  Pricelist,
  PricelistItem,
  Product,
  ProductView,
  SizeTable,
} from '@commerce/catalog-core';
import { enqueue } from '@commerce/shared-bus';
import type { Db, Knex } from '@commerce/shared-db';
import { createBrandsAndCollectionsRepository, refsById, toRef, type RefRow } from './brands-and-collections.knex-repository';
import {
  categoriesInTreeOrder,
  categoriesWithAncestors,
  categoryIdOfUri,
  createCategoriesRepository,
  toCategory,
  type CategoryRow,
} from './categories.knex-repository';
import { chunks, groupBy, json, table, type SqlScope } from './catalog-sql';
import {
  createDeliveryWindowsRepository,
  deliveryWindowSpans,
  toDeliveryWindowSpan,
  type DeliveryWindowSpanRow,
} from './delivery-windows.knex-repository';
import { createMarketsAndWarehousesRepository } from './markets-and-warehouses.knex-repository';
import {
  createPricesRepository,
  findPricelist,
  pricesOfProducts,
  toPricelist,
  toPricelistItem,
  type PricelistItemRow,
} from './prices.knex-repository';
import { createProductsRepository, productsOfRows } from './products.knex-repository';
import { createSizesRepository, sizeTablesByExternalId, toSizeTable, type SizeTableRow } from './sizes.knex-repository';

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
    return composeViews(products, { brands, collections, categories, sizeTables, prices, pricelists, windows });
  }

  /**
   * Products (by their ids, or those of some of their variants) with their views, in one statement (issue 28: a
   * product's view was 8 round trips in turn): each part is the rows the reads of `loadProducts` and `views` select,
   * as JSON, mapped by the same functions.
   */
  async function viewsInOneStatement(by: 'product' | 'variant', ids: number[]): Promise<ProductView[]> {
    if (ids.length === 0) return [];
    const q = (name: string) => db.qualified(name);
    const wanted = `(select cast(value as integer) from json_array_elements_text(cast(? as json)))`;
    const all = (relation: string, order = '') => `(select coalesce(json_agg(r${order}), '[]') from ${relation} r)`;
    const [row] = await db.query<Record<string, unknown>>(
      `with recursive
        p as materialized (select * from ${q('products')} where id in ${
          by === 'product' ? wanted : `(select product_id from ${q('variants')} where id in ${wanted})`
        }),
        v as materialized (select * from ${q('variants')} where product_id in (select id from p)),
        it as materialized (select i.*, s.external_id as size_external_id, s.name as size_name, s.size_table_external_id as size_table_external_id,
            (select coalesce(json_agg(json_build_object('item_id', st.item_id, 'warehouse', st.warehouse, 'qty', st.qty) order by st.warehouse), '[]'::json)
              from ${q('item_stock')} as st where st.item_id = i.id) as item_stock
          from ${q('items')} i join ${q('sizes')} s on s.id = i.size_id where i.variant_id in (select id from v)),
        c(id) as (select category_id from p where category_id is not null
          union select cast(e.value as integer) from v, jsonb_array_elements_text(v.category_ids) e where jsonb_typeof(v.category_ids) = 'array'
          union select k.parent_id from ${q('categories')} k join c on k.id = c.id where k.parent_id is not null),
        pr as materialized (select * from ${q('pricelist_items')} where product_external_id in (select external_id from p))
        select ${all('p')} as products, ${all('v', ' order by r.product_id, r.position')} as variants,
          ${all('it', ' order by r.variant_id, r.position')} as items,
          ${all(`(select * from ${q('brands')} where id in (select brand_id from p))`)} as brands,
          ${all(`(select * from ${q('collections')} where id in (select collection_id from p))`)} as collections,
          ${all(`(select * from ${q('categories')} where id in (select id from c))`)} as categories,
          ${all(`(select * from ${q('size_tables')} where external_id in (select size_table_external_id from v union select size_table_external_id from it))`)} as size_tables,
          ${all('pr')} as prices,
          ${all(`(select * from ${q('pricelists')} where external_id in (select pricelist from pr))`)} as pricelists,
          ${all(`(select dw.external_id, dwv.variation_external_id, dw.status, dw.starts_at, dw.stops_at from ${q('delivery_window_variations')} dwv
            join ${q('delivery_windows')} dw on dw.external_id = dwv.window where dwv.variation_external_id in (select external_id from v))`)} as windows`,
      [JSON.stringify(ids)],
    );
    if (!row) return [];
    const products = productsOfRows(json(row['products']), json(row['variants']), json(row['items']), by === 'product' ? ids : undefined);
    if (products.length === 0) return [];
    const refs = (key: string) => new Map(json<RefRow[]>(row[key]).map((r) => [r.id, toRef(r)]));
    return composeViews(products, {
      brands: refs('brands'),
      collections: refs('collections'),
      categories: new Map(json<CategoryRow[]>(row['categories']).map((r) => [r.id, toCategory(r)])),
      sizeTables: new Map(json<SizeTableRow[]>(row['size_tables']).map((r) => [r.external_id, toSizeTable(r)])),
      prices: json<PricelistItemRow[]>(row['prices']).map(toPricelistItem),
      pricelists: new Map(json<Array<Record<string, string>>>(row['pricelists']).map((r) => [r['external_id']!, toPricelist(r)])),
      windows: json<DeliveryWindowSpanRow[]>(row['windows']).map(toDeliveryWindowSpan),
    });
  }

  return {
    transaction: (work) => (outer ? work(unitOfWork(outer)) : db.transaction((trx) => work(unitOfWork(trx)))),

    loadProducts: (productIds) => viewsInOneStatement('product', productIds),

    loadProductsOfVariants: (variantIds) => viewsInOneStatement('variant', [...new Set(variantIds)]),

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

/** What `views` reads besides the products, for each of them. */
interface ViewParts {
  brands: Map<number, CatalogRef>;
  collections: Map<number, CatalogRef>;
  categories: Map<number, Category>;
  sizeTables: Map<string, SizeTable>;
  prices: PricelistItem[];
  pricelists: Map<string, Pricelist>;
  windows: DeliveryWindowSpan[];
}

/** Each product's view from what was read for all of them. */
function composeViews(products: Product[], parts: ViewParts): ProductView[] {
  const { brands, collections, categories, sizeTables, prices, pricelists, windows } = parts;
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
