import {
  categoryTreeOrder,
  type CatalogRef,
  type CatalogRepository,
  type CatalogUnitOfWork,
  type Category,
  type DeliveryWindow,
  type DeliveryWindowSpan,
  type Item,
  type Pricelist,
  type PricelistItem,
  type Product,
  type ProductKey,
  type ProductView,
  type RefKind,
  type Size,
  type SizeTable,
  SuffixRuns,
  type Variant,
} from '@commerce/catalog-core';
import { enqueue } from '@commerce/shared-bus';
import type { Db, Knex } from '@commerce/shared-db';

const REF_TABLES: Record<RefKind, string> = { brand: 'brands', collection: 'collections' };
const REF_COLUMNS: Record<RefKind, string> = { brand: 'brand_id', collection: 'collection_id' };

interface ProductRow {
  id: number;
  external_id: string;
  name: string;
  sku: string;
  status: string;
  visible: boolean;
  description: string;
  excerpt: string;
  meta_title: string;
  meta_description: string;
  meta_keywords: string;
  country_of_origin: string;
  harm_code: string;
  harm_code_description: string;
  weight_value: string;
  weight_unit: string;
  comment: string;
  brand_id: number | null;
  collection_id: number | null;
  category_id: number | null;
  media: unknown;
  created_at: Date | string;
  modified_at: Date | string;
}
interface VariantRow {
  id: number;
  product_id: number;
  external_id: string;
  name: string;
  sku: string;
  status: string;
  visible: boolean;
  uri: string;
  position: number;
  stock_id: string;
  size_table_external_id: string | null;
  category_ids: unknown;
  markets: unknown;
  item_quantity_minimum: number;
  item_quantity_multiple_of: number;
}
interface ItemRow {
  id: string;
  variant_id: number;
  size_id: number;
  size_external_id: string;
  size_name: string;
  size_table_external_id: string | null;
  sku: string;
  ean: string;
  qty: number;
  stock: number;
  preorder: boolean;
  position: number;
}
interface CategoryRow {
  id: number;
  external_id: string;
  name: string;
  uri: string;
  parent_id: number | null;
  position: number;
  configured: boolean;
  name_path: unknown;
}
interface SizeRow {
  id: number;
  external_id: string;
  name: string;
  sku: string;
  ean: string;
  comment: string;
  size_table_external_id: string | null;
}
interface SizeTableRow {
  external_id: string;
  description: string;
  stock_divisor: number;
  stock_unit: string;
}
interface PricelistItemRow {
  pricelist: string;
  product_external_id: string;
  variation_external_id: string;
  price: number | string;
  price_before_discount: number | string | null;
}
interface DeliveryWindowRow {
  external_id: string;
  status: string;
  description: string;
  starts_at: Date | string | null;
  stops_at: Date | string | null;
  at_once: boolean;
  active_indexed: boolean;
}
interface DeliveryWindowVariationRow {
  window: string;
  variation_external_id: string;
  type: string;
  product_limit: number | null;
  variation_limit: number | null;
}

const iso = (value: Date | string): string => (value instanceof Date ? value : new Date(value)).toISOString();
const isoOrNull = (value: Date | string | null): string | null => (value === null ? null : iso(value));
// pg parses jsonb; a driver that hands back text is handled too.
const json = <T>(value: unknown): T => (typeof value === 'string' ? (JSON.parse(value) as T) : (value as T));
/** Postgres bigint arrives as text (pg) or a number; prices stay far below 2^53. */
const int = (value: number | string): number => Number(value);

/** Lists of ids can be long (a pricelist of 10,000 products): keep each statement's bindings bounded. */
const CHUNK = 1000;
function chunks<T>(list: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += CHUNK) out.push(list.slice(i, i + CHUNK));
  return out;
}

const toCategory = (r: CategoryRow): Category => ({
  id: r.id,
  externalId: r.external_id,
  name: r.name,
  uri: r.uri,
  parentId: r.parent_id,
  position: r.position,
  configured: r.configured,
  namePath: json<string[]>(r.name_path),
});
const toSize = (r: SizeRow): Size => ({
  id: r.id,
  externalId: r.external_id,
  name: r.name,
  sku: r.sku,
  ean: r.ean,
  comment: r.comment,
  sizeTableExternalId: r.size_table_external_id,
});
const toSizeTable = (r: SizeTableRow): SizeTable => ({
  externalId: r.external_id,
  description: r.description,
  stockDivisor: r.stock_divisor,
  stockUnit: r.stock_unit,
});
const toPricelistItem = (r: PricelistItemRow): PricelistItem => ({
  pricelist: r.pricelist,
  productExternalId: r.product_external_id,
  variationExternalId: r.variation_external_id,
  price: int(r.price),
  priceBeforeDiscount: r.price_before_discount === null ? null : int(r.price_before_discount),
});
const toPricelist = (r: Record<string, string>): Pricelist => ({
  externalId: r['external_id']!,
  store: r['store']!,
  type: r['type']!,
  currency: r['currency']!,
  description: r['description']!,
});
const variantRow = (productId: number, v: Variant) => ({
  id: v.id,
  product_id: productId,
  external_id: v.externalId,
  name: v.name,
  sku: v.sku,
  status: v.status,
  visible: v.visible,
  uri: v.uri,
  position: v.position,
  stock_id: v.stockId,
  size_table_external_id: v.sizeTableExternalId,
  category_ids: v.categoryIds,
  markets: v.markets,
  item_quantity_minimum: v.itemQuantityMinimum,
  item_quantity_multiple_of: v.itemQuantityMultipleOf,
});
const itemRow = (variantId: number, i: Item) => ({
  id: i.id,
  variant_id: variantId,
  size_id: i.sizeId,
  sku: i.sku,
  ean: i.ean,
  qty: i.qty,
  stock: i.stock,
  preorder: i.preorder,
  position: i.position,
});
/** The columns `saveProducts` writes, with their SQL types (`json_to_recordset`'s record). */
const PRODUCT_COLUMNS = [
  ['id', 'integer'],
  ['external_id', 'text'],
  ['name', 'text'],
  ['sku', 'text'],
  ['status', 'text'],
  ['visible', 'boolean'],
  ['description', 'text'],
  ['excerpt', 'text'],
  ['meta_title', 'text'],
  ['meta_description', 'text'],
  ['meta_keywords', 'text'],
  ['country_of_origin', 'text'],
  ['harm_code', 'text'],
  ['harm_code_description', 'text'],
  ['weight_value', 'text'],
  ['weight_unit', 'text'],
  ['comment', 'text'],
  ['brand_id', 'integer'],
  ['collection_id', 'integer'],
  ['category_id', 'integer'],
  ['media', 'jsonb'],
  ['created_at', 'timestamptz'],
  ['modified_at', 'timestamptz'],
] as const;
const VARIANT_COLUMNS = [
  ['id', 'integer'],
  ['product_id', 'integer'],
  ['external_id', 'text'],
  ['name', 'text'],
  ['sku', 'text'],
  ['status', 'text'],
  ['visible', 'boolean'],
  ['uri', 'text'],
  ['position', 'integer'],
  ['stock_id', 'text'],
  ['size_table_external_id', 'text'],
  ['category_ids', 'jsonb'],
  ['markets', 'jsonb'],
  ['item_quantity_minimum', 'integer'],
  ['item_quantity_multiple_of', 'integer'],
] as const;
const ITEM_COLUMNS = [
  ['id', 'text'],
  ['variant_id', 'integer'],
  ['size_id', 'integer'],
  ['sku', 'text'],
  ['ean', 'text'],
  ['qty', 'integer'],
  ['stock', 'integer'],
  ['preorder', 'boolean'],
  ['position', 'integer'],
] as const;
const ITEM_STOCK_COLUMNS = [
  ['item_id', 'text'],
  ['warehouse', 'text'],
  ['qty', 'integer'],
] as const;
const toProductKey = (r: { id: number; external_id: string }): ProductKey => ({ id: r.id, externalId: r.external_id });

/**
 * The catalog's store in knex: one code path for Postgres and PGlite, every table in the catalog schema.
 * Bound to `outer`, its `transaction` joins that transaction instead of opening one (a consumer's
 * dedupe record, the state change and the outbox rows then commit together).
 */
export function createCatalogRepository(db: Db, outer?: Knex.Transaction): CatalogRepository {
  const t = (name: string, trx?: Knex.Transaction) => db.table(name, trx);
  const q = (name: string) => `${db.schema}.${name}`;

  async function loadProducts(ids: number[], trx?: Knex.Transaction): Promise<Product[]> {
    if (ids.length === 0) return [];
    const rows = (await t('products', trx).whereIn('id', ids)) as ProductRow[];
    if (rows.length === 0) return [];
    const variants = (await t('variants', trx)
      .whereIn(
        'product_id',
        rows.map((r) => r.id),
      )
      .orderBy([{ column: 'product_id' }, { column: 'position' }])) as VariantRow[];
    const items = variants.length
      ? ((await t('items', trx)
          .join(`${q('sizes')} as s`, 's.id', `${q('items')}.size_id`)
          .whereIn(
            'variant_id',
            variants.map((v) => v.id),
          )
          .orderBy([{ column: 'variant_id' }, { column: `${q('items')}.position` }])
          .select(
            `${q('items')}.*`,
            's.external_id as size_external_id',
            's.name as size_name',
            's.size_table_external_id as size_table_external_id',
          )) as ItemRow[])
      : [];
    const stock = items.length
      ? ((await t('item_stock', trx)
          .whereIn(
            'item_id',
            items.map((i) => i.id),
          )
          .orderBy(['item_id', 'warehouse'])) as Array<{ item_id: string; warehouse: string; qty: number }>)
      : [];
    const stockOf = groupBy(stock, (s) => s.item_id);
    const itemsOf = groupBy(items, (i) => i.variant_id);
    const variantsOf = groupBy(variants, (v) => v.product_id);
    const byId = new Map(rows.map((r) => [r.id, toProduct(r, variantsOf.get(r.id) ?? [], itemsOf, stockOf)]));
    return ids.map((id) => byId.get(id)).filter((p): p is Product => Boolean(p));
  }

  /** What a product's view adds to it (brands, collections, categories, size tables, prices, delivery windows). */
  async function views(products: Product[]): Promise<ProductView[]> {
    if (products.length === 0) return [];

    const tableIds = [
      ...new Set(products.flatMap((p) => p.variants.flatMap((v) => [v.sizeTableExternalId, ...v.items.map((i) => i.sizeTableExternalId)]))),
    ].filter((id): id is string => id !== null);
    const variationIds = [...new Set(products.flatMap((p) => p.variants.map((v) => v.externalId)))];
    // Independent reads, at once: on Postgres each is a round trip of its own (on PGlite they queue).
    const [brands, collections, categories, sizeTables, { prices, pricelists }, spans] = await Promise.all([
      refsById(
        'brand',
        products.map((p) => p.brandId),
      ),
      refsById(
        'collection',
        products.map((p) => p.collectionId),
      ),
      categoriesById(
        products.flatMap((p) => [...(p.categoryId === null ? [] : [p.categoryId]), ...p.variants.flatMap((v) => v.categoryIds)]),
      ),
      (async () =>
        new Map(
          tableIds.length
            ? ((await t('size_tables').whereIn('external_id', tableIds)) as SizeTableRow[]).map((r) => [r.external_id, toSizeTable(r)])
            : [],
        ))(),
      (async () => {
        const prices = (
          (await t('pricelist_items').whereIn(
            'product_external_id',
            products.map((p) => p.externalId),
          )) as PricelistItemRow[]
        ).map(toPricelistItem);
        const pricelistIds = [...new Set(prices.map((p) => p.pricelist))];
        const pricelists = new Map(
          pricelistIds.length
            ? ((await t('pricelists').whereIn('external_id', pricelistIds)) as Array<Record<string, string>>).map((r) => [
                r['external_id']!,
                toPricelist(r),
              ])
            : [],
        );
        return { prices, pricelists };
      })(),
      variationIds.length
        ? (db
            .knex(`${q('delivery_window_variations')} as dwv`)
            .join(`${q('delivery_windows')} as dw`, 'dw.external_id', 'dwv.window')
            .whereIn('dwv.variation_external_id', variationIds)
            .select('dw.external_id', 'dwv.variation_external_id', 'dw.status', 'dw.starts_at', 'dw.stops_at') as Promise<
            Array<{
              external_id: string;
              variation_external_id: string;
              status: string;
              starts_at: Date | string | null;
              stops_at: Date | string | null;
            }>
          >)
        : Promise.resolve([]),
    ]);
    const windows = spans.map((s): DeliveryWindowSpan => ({
      windowExternalId: s.external_id,
      variationExternalId: s.variation_external_id,
      status: s.status,
      startsAt: isoOrNull(s.starts_at),
      stopsAt: isoOrNull(s.stops_at),
    }));
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

  async function refsById(kind: RefKind, ids: Array<number | null>): Promise<Map<number, CatalogRef>> {
    const wanted = [...new Set(ids.filter((id): id is number => id !== null))];
    if (wanted.length === 0) return new Map();
    const rows = (await t(REF_TABLES[kind]).whereIn('id', wanted)) as Array<{ id: number; external_id: string; name: string; uri: string }>;
    return new Map(rows.map((r) => [r.id, { id: r.id, externalId: r.external_id, name: r.name, uri: r.uri }]));
  }

  /** These categories and every ancestor of theirs (the search document lists a product under each level). */
  async function categoriesById(ids: number[]): Promise<Map<number, Category>> {
    const found = new Map<number, Category>();
    let wanted = [...new Set(ids)];
    // One query per level of the tree; a cycle cannot loop, as found ids are not asked again.
    while (wanted.length > 0) {
      const rows = (await t('categories').whereIn('id', wanted)) as CategoryRow[];
      for (const r of rows) found.set(r.id, toCategory(r));
      wanted = [...new Set(rows.map((r) => r.parent_id).filter((id): id is number => id !== null && !found.has(id)))];
    }
    return found;
  }

  /**
   * Writes products with their variants, items and per-warehouse stock (listed ones; unlisted rows are
   * kept): one statement per table, whatever the number of products, variants and sizes, each with its
   * rows as one JSON parameter (`upsertJson`).
   */
  async function saveProducts(trx: Knex.Transaction, products: Product[]): Promise<void> {
    if (products.length === 0) return;
    await upsertJson(
      trx,
      'products',
      PRODUCT_COLUMNS,
      products.map((product) => ({
        id: product.id,
        external_id: product.externalId,
        name: product.name,
        sku: product.sku,
        status: product.status,
        visible: product.visible,
        description: product.description,
        excerpt: product.excerpt,
        meta_title: product.metaTitle,
        meta_description: product.metaDescription,
        meta_keywords: product.metaKeywords,
        country_of_origin: product.countryOfOrigin,
        harm_code: product.harmCode,
        harm_code_description: product.harmCodeDescription,
        weight_value: product.weightValue,
        weight_unit: product.weightUnit,
        comment: product.comment,
        brand_id: product.brandId,
        collection_id: product.collectionId,
        category_id: product.categoryId,
        media: product.media,
        created_at: product.createdAt,
        modified_at: product.modifiedAt,
      })),
    );
    const variants = products.flatMap((product) => product.variants.map((v) => ({ product, v })));
    // A URI can move from one variant to another in one upsert; free them all first.
    await trx.raw(
      `update ?? set uri = '~' || id where id in (select cast(value as integer) from json_array_elements_text(cast(? as json)))`,
      [q('variants'), JSON.stringify(variants.map(({ v }) => v.id))],
    );
    await upsertJson(
      trx,
      'variants',
      VARIANT_COLUMNS,
      variants.map(({ product, v }) => variantRow(product.id, v)),
    );
    const items = variants.flatMap(({ v }) => v.items.map((i) => ({ v, i })));
    await upsertJson(
      trx,
      'items',
      ITEM_COLUMNS,
      items.map(({ v, i }) => itemRow(v.id, i)),
    );
    const stock = items.flatMap(({ i }) => Object.entries(i.warehouseStock).map(([warehouse, qty]) => ({ item_id: i.id, warehouse, qty })));
    await upsertJson(trx, 'item_stock', ITEM_STOCK_COLUMNS, stock, ['item_id', 'warehouse']);
  }

  /**
   * Inserts rows or updates those whose key exists, in one statement: the rows go as one JSON array
   * (`json_to_recordset`), not as a multi-row insert of a parameter per value, which knex numbered and
   * the driver framed one by one (a SOAP batch's items alone were ~45,000 of them).
   */
  async function upsertJson(
    trx: Knex.Transaction,
    table: string,
    columns: ReadonlyArray<readonly [string, string]>,
    rows: Array<Record<string, unknown>>,
    key: string[] = ['id'],
  ): Promise<void> {
    if (rows.length === 0) return;
    const names = columns.map(([name]) => `"${name}"`).join(', ');
    const types = columns.map(([name, type]) => `"${name}" ${type}`).join(', ');
    const updates = columns
      .filter(([name]) => !key.includes(name))
      .map(([name]) => `"${name}" = excluded."${name}"`)
      .join(', ');
    await trx.raw(
      `insert into ?? (${names}) select ${names} from json_to_recordset(cast(? as json)) as r(${types}) ` +
        `on conflict (${key.map((k) => `"${k}"`).join(', ')}) do update set ${updates}`,
      [q(table), JSON.stringify(rows)],
    );
  }

  /** Products (id, external id) selected by a query on products `p` joined as the caller needs. */
  const productKeys = async (query: Knex.QueryBuilder): Promise<ProductKey[]> =>
    ((await query.distinct('p.id', 'p.external_id').orderBy('p.id')) as Array<{ id: number; external_id: string }>).map(toProductKey);

  async function loadDeliveryWindows(trx: Knex.Transaction, externalIds?: string[]): Promise<DeliveryWindow[]> {
    const query = t('delivery_windows', trx).orderBy('external_id');
    if (externalIds) query.whereIn('external_id', externalIds);
    const rows = (await query) as DeliveryWindowRow[];
    if (rows.length === 0) return [];
    const variations = (await t('delivery_window_variations', trx)
      .whereIn(
        'window',
        rows.map((r) => r.external_id),
      )
      .orderBy(['window', 'variation_external_id'])) as DeliveryWindowVariationRow[];
    const variationsOf = groupBy(variations, (v) => v.window);
    return rows.map((r) => ({
      externalId: r.external_id,
      status: r.status,
      description: r.description,
      startsAt: isoOrNull(r.starts_at),
      stopsAt: isoOrNull(r.stops_at),
      atOnce: r.at_once,
      activeIndexed: r.active_indexed,
      variations: (variationsOf.get(r.external_id) ?? []).map((v) => ({
        variationExternalId: v.variation_external_id,
        type: v.type,
        productLimit: v.product_limit,
        variationLimit: v.variation_limit,
      })),
    }));
  }

  const unitOfWork = (trx: Knex.Transaction): CatalogUnitOfWork => ({
    async findProductsByExternalIds(externalIds) {
      const ids: number[] = [];
      for (const part of chunks([...new Set(externalIds)])) {
        ids.push(...((await t('products', trx).whereIn('external_id', part).select('id')) as Array<{ id: number }>).map((r) => r.id));
      }
      const products: Product[] = [];
      for (const part of chunks(ids)) products.push(...(await loadProducts(part, trx)));
      return products;
    },
    async nextIds(kind, count) {
      if (count <= 0) return [];
      const res = await trx.raw(`select nextval(pg_get_serial_sequence(?, 'id')) as id from generate_series(1, ?)`, [
        q(kind === 'product' ? 'products' : 'variants'),
        count,
      ]);
      return (res as { rows: Array<{ id: number | string }> }).rows.map((r) => Number(r.id)).sort((a, b) => a - b);
    },
    async variantUris(bases) {
      const rows: Array<{ id: number; uri: string }> = [];
      for (const part of chunks([...new Set(bases)])) {
        rows.push(
          ...((await t('variants', trx)
            .whereIn('uri', part)
            .orWhereRaw(`regexp_replace(uri, '-[0-9]+$', '') in (${part.map(() => '?').join(', ')})`, part)
            .select('id', 'uri')) as Array<{ id: number; uri: string }>),
        );
      }
      return rows;
    },
    async saveProducts(products) {
      for (const part of chunks(products)) await saveProducts(trx, part);
    },

    async findRefsByExternalIds(kind, externalIds) {
      const refs: CatalogRef[] = [];
      for (const part of chunks([...new Set(externalIds)])) {
        const rows = (await t(REF_TABLES[kind], trx).whereIn('external_id', part)) as Array<{
          id: number;
          external_id: string;
          name: string;
          uri: string;
        }>;
        refs.push(...rows.map((r) => ({ id: r.id, externalId: r.external_id, name: r.name, uri: r.uri })));
      }
      return refs;
    },
    async refUriTaken(kind, uri, exceptId) {
      const query = t(REF_TABLES[kind], trx).where({ uri });
      if (exceptId !== null) query.whereNot({ id: exceptId });
      return Boolean(await query.first('id'));
    },
    refUriHighestSuffix: (kind, base) => uriRunEnd(t(REF_TABLES[kind], trx), base),
    async saveRef(kind, ref) {
      const row = { external_id: ref.externalId, name: ref.name, uri: ref.uri };
      const [saved] =
        ref.id === null
          ? await t(REF_TABLES[kind], trx).insert(row).returning('id')
          : await t(REF_TABLES[kind], trx).where({ id: ref.id }).update(row).returning('id');
      return { ...ref, id: (saved as { id: number }).id };
    },

    async findCategoriesByExternalIds(externalIds) {
      const found: Category[] = [];
      for (const part of chunks([...new Set(externalIds)])) {
        found.push(...((await t('categories', trx).whereIn('external_id', part)) as CategoryRow[]).map(toCategory));
      }
      return found;
    },
    async listCategories() {
      return ((await t('categories', trx).orderBy('id')) as CategoryRow[]).map(toCategory);
    },
    nextCategoryId: () => nextval(trx, q('categories')),
    async categoryUriTaken(uri, exceptId) {
      const query = t('categories', trx).where({ uri });
      if (exceptId !== null) query.whereNot({ id: exceptId });
      return Boolean(await query.first('id'));
    },
    categoryUriHighestSuffix: (base) => uriRunEnd(t('categories', trx), base),
    async nextTopCategoryPosition() {
      const row = (await t('categories', trx).whereNull('parent_id').max({ p: 'position' }).first()) as { p: number | null } | undefined;
      return row?.p === null || row?.p === undefined ? 0 : Number(row.p) + 1;
    },
    async saveCategories(categories) {
      if (categories.length === 0) return;
      const ids = categories.map((c) => c.id);
      // URIs may move between categories in one change; free theirs first (parents before children follow from the ids).
      await t('categories', trx)
        .whereIn('id', ids)
        .update({ uri: db.knex.raw(`'~' || id`) });
      const rows = categories.map((c) => ({
        id: c.id,
        external_id: c.externalId,
        name: c.name,
        uri: c.uri,
        parent_id: null,
        position: c.position,
        configured: c.configured,
        name_path: JSON.stringify(c.namePath),
      }));
      await t('categories', trx).insert(rows).onConflict('id').merge();
      // Parents second: a parent may be among the rows just inserted.
      for (const c of categories) {
        if (c.parentId !== null) await t('categories', trx).where({ id: c.id }).update({ parent_id: c.parentId });
      }
    },

    async findSizesByExternalIds(externalIds) {
      const found: Size[] = [];
      for (const part of chunks([...new Set(externalIds)])) {
        found.push(...((await t('sizes', trx).whereIn('external_id', part)) as SizeRow[]).map(toSize));
      }
      return found;
    },
    async saveSize(size) {
      const row = {
        external_id: size.externalId,
        name: size.name,
        sku: size.sku,
        ean: size.ean,
        comment: size.comment,
        size_table_external_id: size.sizeTableExternalId,
      };
      const [saved] =
        size.id === null
          ? await t('sizes', trx).insert(row).returning('id')
          : await t('sizes', trx).where({ id: size.id }).update(row).returning('id');
      return { ...size, id: (saved as { id: number }).id };
    },
    async findSizeTable(externalId) {
      const r = (await t('size_tables', trx).where({ external_id: externalId }).first()) as SizeTableRow | undefined;
      return r ? toSizeTable(r) : null;
    },
    async saveSizeTable(table) {
      await t('size_tables', trx)
        .insert({
          external_id: table.externalId,
          description: table.description,
          stock_divisor: table.stockDivisor,
          stock_unit: table.stockUnit,
        })
        .onConflict('external_id')
        .merge();
    },

    async findMarket(externalId) {
      const r = await t('markets', trx).where({ external_id: externalId }).first();
      return r ? { externalId: r.external_id, store: r.store, type: r.type, description: r.description } : null;
    },
    async listMarketIds() {
      return ((await t('markets', trx).orderBy('external_id').select('external_id')) as Array<{ external_id: string }>).map(
        (r) => r.external_id,
      );
    },
    async saveMarket(market) {
      await t('markets', trx)
        .insert({ external_id: market.externalId, store: market.store, type: market.type, description: market.description })
        .onConflict('external_id')
        .merge();
    },
    async findWarehouse(externalId) {
      const r = await t('warehouses', trx).where({ external_id: externalId }).first();
      return r ? { externalId: r.external_id, description: r.description } : null;
    },
    async saveWarehouse(warehouse) {
      await t('warehouses', trx)
        .insert({ external_id: warehouse.externalId, description: warehouse.description })
        .onConflict('external_id')
        .merge();
    },

    async findPricelist(externalId) {
      const r = await t('pricelists', trx).where({ external_id: externalId }).first();
      return r ? toPricelist(r) : null;
    },
    async savePricelist(pricelist) {
      await t('pricelists', trx)
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
    async pricelistItems(pricelist, productExternalIds) {
      if (productExternalIds === undefined)
        return ((await t('pricelist_items', trx).where({ pricelist })) as PricelistItemRow[]).map(toPricelistItem);
      const rows: PricelistItemRow[] = [];
      for (const part of chunks(productExternalIds)) {
        rows.push(...((await t('pricelist_items', trx).where({ pricelist }).whereIn('product_external_id', part)) as PricelistItemRow[]));
      }
      return rows.map(toPricelistItem);
    },
    async savePricelistItems(items) {
      const rows = items.map((i) => ({
        pricelist: i.pricelist,
        product_external_id: i.productExternalId,
        variation_external_id: i.variationExternalId,
        price: i.price,
        price_before_discount: i.priceBeforeDiscount,
      }));
      for (const part of chunks(rows)) {
        await t('pricelist_items', trx).insert(part).onConflict(['pricelist', 'product_external_id', 'variation_external_id']).merge();
      }
    },

    async findDeliveryWindow(externalId) {
      return (await loadDeliveryWindows(trx, [externalId]))[0] ?? null;
    },
    listDeliveryWindows: () => loadDeliveryWindows(trx),
    async saveDeliveryWindow(window) {
      await t('delivery_windows', trx)
        .insert({
          external_id: window.externalId,
          status: window.status,
          description: window.description,
          starts_at: window.startsAt,
          stops_at: window.stopsAt,
          at_once: window.atOnce,
          active_indexed: window.activeIndexed,
        })
        .onConflict('external_id')
        .merge();
      await t('delivery_window_variations', trx).where({ window: window.externalId }).delete();
      const rows = window.variations.map((v) => ({
        window: window.externalId,
        variation_external_id: v.variationExternalId,
        type: v.type,
        product_limit: v.productLimit,
        variation_limit: v.variationLimit,
      }));
      for (const part of chunks(rows)) await t('delivery_window_variations', trx).insert(part);
    },
    async setDeliveryWindowActiveIndexed(externalId, active) {
      await t('delivery_windows', trx).where({ external_id: externalId }).update({ active_indexed: active });
    },

    async productsByExternalIds(externalIds) {
      const keys: ProductKey[] = [];
      for (const part of chunks([...new Set(externalIds)])) {
        keys.push(
          ...(await productKeys(
            db
              .knex(`${q('products')} as p`)
              .transacting(trx)
              .whereIn('p.external_id', part),
          )),
        );
      }
      return keys;
    },
    async productsWithSizes(sizeIds) {
      if (sizeIds.length === 0) return [];
      return productKeys(
        db
          .knex(`${q('products')} as p`)
          .transacting(trx)
          .join(`${q('variants')} as v`, 'v.product_id', 'p.id')
          .join(`${q('items')} as i`, 'i.variant_id', 'v.id')
          .whereIn('i.size_id', sizeIds),
      );
    },
    async productsWithSizeTable(tableExternalId) {
      return productKeys(
        db
          .knex(`${q('products')} as p`)
          .transacting(trx)
          .join(`${q('variants')} as v`, 'v.product_id', 'p.id')
          .leftJoin(`${q('items')} as i`, 'i.variant_id', 'v.id')
          .leftJoin(`${q('sizes')} as s`, 's.id', 'i.size_id')
          .where('v.size_table_external_id', tableExternalId)
          .orWhere('s.size_table_external_id', tableExternalId),
      );
    },
    async productsWithVariations(variationExternalIds) {
      const keys: ProductKey[] = [];
      for (const part of chunks([...new Set(variationExternalIds)])) {
        keys.push(
          ...(await productKeys(
            db
              .knex(`${q('products')} as p`)
              .transacting(trx)
              .join(`${q('variants')} as v`, 'v.product_id', 'p.id')
              .whereIn('v.external_id', part),
          )),
        );
      }
      return keys;
    },
    async productsWithRef(kind, id) {
      return productKeys(
        db
          .knex(`${q('products')} as p`)
          .transacting(trx)
          .where(`p.${REF_COLUMNS[kind]}`, id),
      );
    },
    async productsInCategories(categoryIds) {
      if (categoryIds.length === 0) return [];
      return productKeys(
        db
          .knex(`${q('products')} as p`)
          .transacting(trx)
          .leftJoin(`${q('variants')} as v`, 'v.product_id', 'p.id')
          .where((w) => {
            w.whereIn('p.category_id', categoryIds);
            for (const id of categoryIds) w.orWhereRaw('v.category_ids @> ?::jsonb', [JSON.stringify([id])]);
          }),
      );
    },

    publish: (events) => enqueue(db, trx, events),
  });

  return {
    transaction: (work) => (outer ? work(unitOfWork(outer)) : db.transaction((trx) => work(unitOfWork(trx)))),

    async loadProducts(productIds) {
      return views(await loadProducts(productIds));
    },

    productViews: (products) => views(products),

    async productIdsOfVariants(variantIds) {
      if (variantIds.length === 0) return new Map();
      const rows: Array<{ id: number; product_id: number }> = [];
      for (const part of chunks(variantIds))
        rows.push(...((await t('variants').whereIn('id', part).select('id', 'product_id')) as typeof rows));
      return new Map(rows.map((r) => [r.id, r.product_id]));
    },

    async listProductIds(afterId, limit) {
      const rows = (await t('products').where('id', '>', afterId).orderBy('id').limit(limit).select('id')) as Array<{ id: number }>;
      return rows.map((r) => r.id);
    },

    async countProducts() {
      const row = (await t('products').count<{ n: number | string }[]>({ n: '*' }))[0];
      return Number(row?.n ?? 0);
    },

    async listCategories() {
      return categoryTreeOrder(((await t('categories')) as CategoryRow[]).map(toCategory));
    },

    async findRefs(kind, ids) {
      return [...(await refsById(kind, ids)).values()];
    },

    async findUri(uri) {
      const variant = (await t('variants').where({ uri }).first('id')) as { id: number } | undefined;
      const category = (await t('categories').where({ uri }).first('id')) as { id: number } | undefined;
      return { variantId: variant?.id ?? null, categoryId: category?.id ?? null };
    },

    async findPricelist(externalId) {
      const r = await t('pricelists').where({ external_id: externalId }).first();
      return r ? toPricelist(r) : null;
    },
  };
}

async function nextval(trx: Knex.Transaction, table: string): Promise<number> {
  const res = await trx.raw(`select nextval(pg_get_serial_sequence(?, 'id')) as id`, [table]);
  return Number((res as { rows: Array<{ id: number | string }> }).rows[0]!.id);
}

function groupBy<T, K>(rows: T[], key: (row: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const row of rows) {
    const k = key(row);
    const list = groups.get(k);
    if (list) list.push(row);
    else groups.set(k, [row]);
  }
  return groups;
}

/**
 * Where the run of a table's URIs `<base>`, `<base>-2` … ends: one query for the stem's URIs (brands,
 * collections and categories are few; no index), instead of a query a suffix tried (decision 100).
 */
async function uriRunEnd(table: Knex.QueryBuilder, base: string): Promise<number> {
  const rows = (await table.where('uri', base).orWhereRaw(`regexp_replace(uri, '-[0-9]+$', '') = ?`, [base]).select('uri')) as Array<{
    uri: string;
  }>;
  const runs = new SuffixRuns();
  for (const { uri } of rows) runs.note(uri);
  return runs.end(base);
}

function toProduct(
  r: ProductRow,
  variants: VariantRow[],
  itemsOf: Map<number, ItemRow[]>,
  stockOf: Map<string, Array<{ warehouse: string; qty: number }>>,
): Product {
  return {
    id: r.id,
    externalId: r.external_id,
    name: r.name,
    sku: r.sku,
    status: r.status,
    visible: r.visible,
    description: r.description,
    excerpt: r.excerpt,
    metaTitle: r.meta_title,
    metaDescription: r.meta_description,
    metaKeywords: r.meta_keywords,
    countryOfOrigin: r.country_of_origin,
    harmCode: r.harm_code,
    harmCodeDescription: r.harm_code_description,
    weightValue: r.weight_value,
    weightUnit: r.weight_unit,
    comment: r.comment,
    brandId: r.brand_id,
    collectionId: r.collection_id,
    categoryId: r.category_id,
    media: json(r.media),
    createdAt: iso(r.created_at),
    modifiedAt: iso(r.modified_at),
    variants: variants.map((v): Variant => ({
      id: v.id,
      externalId: v.external_id,
      name: v.name,
      sku: v.sku,
      status: v.status,
      visible: v.visible,
      uri: v.uri,
      position: v.position,
      stockId: v.stock_id,
      sizeTableExternalId: v.size_table_external_id,
      categoryIds: json<number[]>(v.category_ids),
      markets: v.markets === null || v.markets === undefined ? null : json<string[]>(v.markets),
      itemQuantityMinimum: v.item_quantity_minimum,
      itemQuantityMultipleOf: v.item_quantity_multiple_of,
      items: (itemsOf.get(v.id) ?? []).map((i): Item => ({
        id: i.id,
        sizeId: i.size_id,
        sizeExternalId: i.size_external_id,
        sizeName: i.size_name,
        sizeTableExternalId: i.size_table_external_id,
        sku: i.sku,
        ean: i.ean,
        qty: i.qty,
        warehouseStock: Object.fromEntries((stockOf.get(i.id) ?? []).map((s) => [s.warehouse, s.qty])),
        stock: i.stock,
        preorder: i.preorder,
        position: i.position,
      })),
    })),
  };
}
