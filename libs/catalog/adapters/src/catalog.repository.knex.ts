import type {
  CatalogRef,
  CatalogRepository,
  CatalogUnitOfWork,
  Item,
  Price,
  Product,
  ProductView,
  RefKind,
  Size,
  Variant,
} from '@commerce/catalog-core';
import { enqueue } from '@commerce/shared-bus';
import type { Db, Knex } from '@commerce/shared-db';

const REF_TABLES: Record<RefKind, string> = { brand: 'brands', collection: 'collections', category: 'categories' };

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
  category_ids: unknown;
  item_quantity_minimum: number;
  item_quantity_multiple_of: number;
}
interface ItemRow {
  id: string;
  variant_id: number;
  size_id: number;
  size_external_id: string;
  size_name: string;
  sku: string;
  ean: string;
  stock: number;
  preorder: boolean;
  position: number;
}

const iso = (value: Date | string): string => (value instanceof Date ? value : new Date(value)).toISOString();
// pg parses jsonb; a driver that hands back text is handled too.
const json = <T>(value: unknown): T => (typeof value === 'string' ? (JSON.parse(value) as T) : (value as T));

/**
 * The catalog's store in knex: one code path for Postgres and PGlite, every table in the catalog schema.
 * Bound to `outer`, its `transaction` joins that transaction instead of opening one (a consumer's
 * dedupe record, the state change and the outbox rows then commit together).
 */
export function createCatalogRepository(db: Db, outer?: Knex.Transaction): CatalogRepository {
  const t = (name: string, trx?: Knex.Transaction) => db.table(name, trx);

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
          .join(`${db.schema}.sizes as s`, 's.id', `${db.schema}.items.size_id`)
          .whereIn(
            'variant_id',
            variants.map((v) => v.id),
          )
          .orderBy([{ column: 'variant_id' }, { column: `${db.schema}.items.position` }])
          .select(`${db.schema}.items.*`, 's.external_id as size_external_id', 's.name as size_name')) as ItemRow[])
      : [];
    const itemsOf = groupBy(items, (i) => i.variant_id);
    const variantsOf = groupBy(variants, (v) => v.product_id);
    const byId = new Map(rows.map((r) => [r.id, toProduct(r, variantsOf.get(r.id) ?? [], itemsOf)]));
    return ids.map((id) => byId.get(id)).filter((p): p is Product => Boolean(p));
  }

  async function refsById(kind: RefKind, ids: Array<number | null>, trx?: Knex.Transaction): Promise<Map<number, CatalogRef>> {
    const wanted = [...new Set(ids.filter((id): id is number => id !== null))];
    if (wanted.length === 0) return new Map();
    const rows = (await t(REF_TABLES[kind], trx).whereIn('id', wanted)) as Array<{
      id: number;
      external_id: string;
      name: string;
      uri: string;
    }>;
    return new Map(rows.map((r) => [r.id, { id: r.id, externalId: r.external_id, name: r.name, uri: r.uri }]));
  }

  const unitOfWork = (trx: Knex.Transaction): CatalogUnitOfWork => ({
    async findProductByExternalId(externalId) {
      const row = await t('products', trx).where({ external_id: externalId }).first('id');
      return row ? ((await loadProducts([row.id as number], trx))[0] ?? null) : null;
    },
    nextProductId: () => nextval(trx, `${db.schema}.products`),
    nextVariantId: () => nextval(trx, `${db.schema}.variants`),
    async variantUriTaken(uri, exceptVariantId) {
      return Boolean(await t('variants', trx).where({ uri }).whereNot({ id: exceptVariantId }).first('id'));
    },
    async saveProduct(product) {
      await t('products', trx)
        .insert({
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
          brand_id: product.brandId,
          collection_id: product.collectionId,
          category_id: product.categoryId,
          media: JSON.stringify(product.media),
          created_at: product.createdAt,
          modified_at: product.modifiedAt,
        })
        .onConflict('id')
        .merge();
      // A URI can move from one variant to another in one upsert; free them all first.
      if (product.variants.length > 0) {
        await t('variants', trx)
          .whereIn(
            'id',
            product.variants.map((v) => v.id),
          )
          .update({ uri: db.knex.raw(`'~' || id`) });
      }
      // One statement per table, whatever the number of variants and sizes.
      if (product.variants.length > 0) {
        await t('variants', trx)
          .insert(
            product.variants.map((v) => ({
              id: v.id,
              product_id: product.id,
              external_id: v.externalId,
              name: v.name,
              sku: v.sku,
              status: v.status,
              visible: v.visible,
              uri: v.uri,
              position: v.position,
              category_ids: JSON.stringify(v.categoryIds),
              item_quantity_minimum: v.itemQuantityMinimum,
              item_quantity_multiple_of: v.itemQuantityMultipleOf,
            })),
          )
          .onConflict('id')
          .merge();
      }
      const items = product.variants.flatMap((v) =>
        v.items.map((i) => ({
          id: i.id,
          variant_id: v.id,
          size_id: i.sizeId,
          sku: i.sku,
          ean: i.ean,
          stock: i.stock,
          preorder: i.preorder,
          position: i.position,
        })),
      );
      if (items.length > 0) await t('items', trx).insert(items).onConflict('id').merge();
    },
    async findRef(kind, externalId) {
      const r = await t(REF_TABLES[kind], trx).where({ external_id: externalId }).first();
      return r ? { id: r.id, externalId: r.external_id, name: r.name, uri: r.uri } : null;
    },
    async refUriTaken(kind, uri, exceptId) {
      const q = t(REF_TABLES[kind], trx).where({ uri });
      if (exceptId !== null) q.whereNot({ id: exceptId });
      return Boolean(await q.first('id'));
    },
    async saveRef(kind, ref) {
      const row = { external_id: ref.externalId, name: ref.name, uri: ref.uri };
      const [saved] =
        ref.id === null
          ? await t(REF_TABLES[kind], trx).insert(row).returning('id')
          : await t(REF_TABLES[kind], trx).where({ id: ref.id }).update(row).returning('id');
      return { ...ref, id: (saved as { id: number }).id };
    },
    async findSize(externalId) {
      const r = await t('sizes', trx).where({ external_id: externalId }).first();
      return r ? ({ id: r.id, externalId: r.external_id, name: r.name } as Size) : null;
    },
    async saveSize(size) {
      const row = { external_id: size.externalId, name: size.name };
      const [saved] =
        size.id === null
          ? await t('sizes', trx).insert(row).returning('id')
          : await t('sizes', trx).where({ id: size.id }).update(row).returning('id');
      return { ...size, id: (saved as { id: number }).id };
    },
    publish: (events) => enqueue(db, trx, events),
  });

  return {
    transaction: (work) => (outer ? work(unitOfWork(outer)) : db.transaction((trx) => work(unitOfWork(trx)))),

    async loadProducts(productIds) {
      const products = await loadProducts(productIds);
      const brands = await refsById(
        'brand',
        products.map((p) => p.brandId),
      );
      const collections = await refsById(
        'collection',
        products.map((p) => p.collectionId),
      );
      const categories = await refsById(
        'category',
        products.flatMap((p) => [p.categoryId, ...p.variants.flatMap((v) => v.categoryIds)]),
      );
      return products.map((product): ProductView => ({
        product,
        brand: product.brandId === null ? null : (brands.get(product.brandId) ?? null),
        collection: product.collectionId === null ? null : (collections.get(product.collectionId) ?? null),
        categories,
      }));
    },

    async productIdsOfVariants(variantIds) {
      if (variantIds.length === 0) return new Map();
      const rows = (await t('variants').whereIn('id', variantIds).select('id', 'product_id')) as Array<{ id: number; product_id: number }>;
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

    async pricesOf(pricelist, variantIds) {
      if (variantIds.length === 0) return new Map();
      const rows = (await t('prices').where({ pricelist }).whereIn('product_id', variantIds)) as Array<{
        product_id: number;
        price: string | number;
        price_before_discount: string | number | null;
        currency: string;
      }>;
      return new Map(
        rows.map((r): [number, Price] => [
          r.product_id,
          { price: Number(r.price), priceBeforeDiscount: Number(r.price_before_discount ?? r.price), currency: r.currency },
        ]),
      );
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

function toProduct(r: ProductRow, variants: VariantRow[], itemsOf: Map<number, ItemRow[]>): Product {
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
      categoryIds: json<number[]>(v.category_ids),
      itemQuantityMinimum: v.item_quantity_minimum,
      itemQuantityMultipleOf: v.item_quantity_multiple_of,
      items: (itemsOf.get(v.id) ?? []).map((i): Item => ({
        id: i.id,
        sizeId: i.size_id,
        sizeExternalId: i.size_external_id,
        sizeName: i.size_name,
        sku: i.sku,
        ean: i.ean,
        stock: i.stock,
        preorder: i.preorder,
        position: i.position,
      })),
    })),
  };
}
