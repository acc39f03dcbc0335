import type { Product, ProductKey, ProductsRepository, RefKind } from '@commerce/catalog-core';
import type { Db, Knex } from '@commerce/shared-db';
import { chunks, groupBy, json, knexTable, table, type SqlScope } from './catalog-sql';
import {
  ITEM_COLUMNS,
  ITEM_STOCK_COLUMNS,
  itemRow,
  PRODUCT_COLUMNS,
  productRow,
  toProduct,
  VARIANT_COLUMNS,
  variantRow,
  type ItemRow,
  type ItemStockRow,
  type ProductRow,
  type VariantRow,
} from './product.rows';

const REF_COLUMNS: Record<RefKind, string> = { brand: 'brand_id', collection: 'collection_id' };

/** Products by id with their variants, items (and their sizes) and per-warehouse stock; unknown ids are left out. */
export async function loadProducts(scope: SqlScope, ids: number[]): Promise<Product[]> {
  if (ids.length === 0) return [];
  const q = (name: string) => knexTable(scope.db, name);
  const rows = (await table(scope, 'products').whereIn('id', ids)) as ProductRow[];
  if (rows.length === 0) return [];
  const variants = (await table(scope, 'variants')
    .whereIn(
      'product_id',
      rows.map((r) => r.id),
    )
    .orderBy([{ column: 'product_id' }, { column: 'position' }])) as VariantRow[];
  const items = variants.length
    ? ((await table(scope, 'items')
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
          // Each item's per-warehouse stock in the same statement (issue 28: it was a read of its own).
          scope.db.knex.raw(
            `(select coalesce(json_agg(json_build_object('item_id', st.item_id, 'warehouse', st.warehouse, 'qty', st.qty) order by st.warehouse), '[]'::json) from ${scope.db.qualified('item_stock')} as st where st.item_id = ${scope.db.qualified('items')}.id) as item_stock`,
          ),
        )) as Array<ItemRow & { item_stock: ItemStockRow[] | string }>)
    : [];
  return productsOfRows(rows, variants, items, ids);
}

/**
 * Products from their rows: variants in (product, position) order, items in (variant, position) order with their
 * per-warehouse stock (`item_stock`); in the order of `ids`, or of the rows.
 */
export function productsOfRows(
  rows: ProductRow[],
  variants: VariantRow[],
  items: Array<ItemRow & { item_stock: ItemStockRow[] | string }>,
  ids: number[] = rows.map((r) => r.id),
): Product[] {
  const stockOf = new Map(items.map((i) => [i.id, json<ItemStockRow[]>(i.item_stock)]));
  const itemsOf = groupBy(items, (i) => i.variant_id);
  const variantsOf = groupBy(variants, (v) => v.product_id);
  const byId = new Map(rows.map((r) => [r.id, toProduct(r, variantsOf.get(r.id) ?? [], itemsOf, stockOf)]));
  return ids.map((id) => byId.get(id)).filter((p): p is Product => Boolean(p));
}

/** The products, variants, items and stock of a unit of work (`trx`), and which products a change touches. */
export function createProductsRepository(db: Db, trx: Knex.Transaction): ProductsRepository {
  const scope: SqlScope = { db, trx };
  const q = (name: string) => knexTable(db, name);
  /** Products (id, external id) selected by a query on products `p` joined as the caller needs. */
  const keys = async (query: (products: Knex.QueryBuilder) => Knex.QueryBuilder): Promise<ProductKey[]> =>
    (
      (await query(db.knex(`${q('products')} as p`).transacting(trx))
        .distinct('p.id', 'p.external_id')
        .orderBy('p.id')) as Array<{ id: number; external_id: string }>
    ).map((r) => ({ id: r.id, externalId: r.external_id }));

  return {
    async findByExternalIds(externalIds) {
      const ids: number[] = [];
      for (const part of chunks([...new Set(externalIds)])) {
        ids.push(...((await table(scope, 'products').whereIn('external_id', part).select('id')) as Array<{ id: number }>).map((r) => r.id));
      }
      const products: Product[] = [];
      for (const part of chunks(ids)) products.push(...(await loadProducts(scope, part)));
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
          ...((await table(scope, 'variants')
            .whereIn('uri', part)
            .orWhereRaw(`regexp_replace(uri, '-[0-9]+$', '') in (${part.map(() => '?').join(', ')})`, part)
            .select('id', 'uri')) as Array<{ id: number; uri: string }>),
        );
      }
      return rows;
    },
    async save(products) {
      for (const part of chunks(products)) await saveProducts(db, trx, part);
    },

    async keysOf(externalIds) {
      const found: ProductKey[] = [];
      for (const part of chunks([...new Set(externalIds)])) found.push(...(await keys((p) => p.whereIn('p.external_id', part))));
      return found;
    },
    async keysWithSizes(sizeIds) {
      if (sizeIds.length === 0) return [];
      return keys((p) =>
        p
          .join(`${q('variants')} as v`, 'v.product_id', 'p.id')
          .join(`${q('items')} as i`, 'i.variant_id', 'v.id')
          .whereIn('i.size_id', sizeIds),
      );
    },
    keysWithSizeTable: (tableExternalId) =>
      keys((p) =>
        p
          .join(`${q('variants')} as v`, 'v.product_id', 'p.id')
          .leftJoin(`${q('items')} as i`, 'i.variant_id', 'v.id')
          .leftJoin(`${q('sizes')} as s`, 's.id', 'i.size_id')
          .where('v.size_table_external_id', tableExternalId)
          .orWhere('s.size_table_external_id', tableExternalId),
      ),
    async keysWithVariations(variationExternalIds) {
      const found: ProductKey[] = [];
      for (const part of chunks([...new Set(variationExternalIds)]))
        found.push(...(await keys((p) => p.join(`${q('variants')} as v`, 'v.product_id', 'p.id').whereIn('v.external_id', part))));
      return found;
    },
    keysWithRef: (kind, id) => keys((p) => p.where(`p.${REF_COLUMNS[kind]}`, id)),
    async keysInCategories(categoryIds) {
      if (categoryIds.length === 0) return [];
      return keys((p) =>
        p.leftJoin(`${q('variants')} as v`, 'v.product_id', 'p.id').where((w) => {
          w.whereIn('p.category_id', categoryIds);
          for (const id of categoryIds) w.orWhereRaw('v.category_ids @> ?::jsonb', [JSON.stringify([id])]);
        }),
      );
    },
  };
}

/**
 * Writes products with their variants, items and per-warehouse stock (listed ones; unlisted rows are
 * kept): one statement per table, whatever the number of products, variants and sizes, each with its
 * rows as one JSON parameter (`upsertJson`).
 */
async function saveProducts(db: Db, trx: Knex.Transaction, products: Product[]): Promise<void> {
  if (products.length === 0) return;
  await upsertJson(db, trx, 'products', PRODUCT_COLUMNS, products.map(productRow));
  const variants = products.flatMap((product) => product.variants.map((v) => ({ product, v })));
  // A URI can move from one variant to another in one upsert; free them all first.
  await trx.raw(
    `update ?? set uri = '~' || id where id in (select cast(value as integer) from json_array_elements_text(cast(? as json)))`,
    [knexTable(db, 'variants'), JSON.stringify(variants.map(({ v }) => v.id))],
  );
  await upsertJson(
    db,
    trx,
    'variants',
    VARIANT_COLUMNS,
    variants.map(({ product, v }) => variantRow(product.id, v)),
  );
  const items = variants.flatMap(({ v }) => v.items.map((i) => ({ v, i })));
  await upsertJson(
    db,
    trx,
    'items',
    ITEM_COLUMNS,
    items.map(({ v, i }) => itemRow(v.id, i)),
  );
  const stock = items.flatMap(({ i }) => Object.entries(i.warehouseStock).map(([warehouse, qty]) => ({ item_id: i.id, warehouse, qty })));
  await upsertJson(db, trx, 'item_stock', ITEM_STOCK_COLUMNS, stock, ['item_id', 'warehouse']);
}

/**
 * Inserts rows or updates those whose key exists, in one statement: the rows go as one JSON array
 * (`json_to_recordset`), not as a multi-row insert of a parameter per value, which knex numbered and
 * the driver framed one by one (a SOAP batch's items alone were ~45,000 of them).
 */
async function upsertJson(
  db: Db,
  trx: Knex.Transaction,
  tableName: string,
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
    [knexTable(db, tableName), JSON.stringify(rows)],
  );
}
