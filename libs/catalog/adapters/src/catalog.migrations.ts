import { searchQueriesMigration } from './search/search-queries.store';
import type { Knex, Migration } from '@commerce/shared-db';
import { outboxMigrations } from '@commerce/shared-bus';
import { stockHoldsHeldMigration, stockHoldsLostMigration, stockHoldsMigration } from './stock-holds.migrations';

const refTable =
  (name: string): Migration['up'] =>
  async (knex, schema) => {
    await knex.schema.withSchema(schema).createTable(name, (t) => {
      t.increments('id').primary();
      t.text('external_id').notNullable().unique();
      t.text('name').notNullable();
      t.text('uri').notNullable().unique();
    });
  };

const catalogTables: Migration = {
  name: 'catalog_001_products',
  async up(knex, schema) {
    await refTable('brands')(knex, schema);
    await refTable('collections')(knex, schema);
    await refTable('categories')(knex, schema);
    await knex.schema.withSchema(schema).alterTable('categories', (t) => {
      t.integer('parent_id').nullable().references('id').inTable(`${schema}.categories`);
    });
    await knex.schema.withSchema(schema).createTable('sizes', (t) => {
      t.increments('id').primary();
      t.text('external_id').notNullable().unique();
      t.text('name').notNullable();
    });
    await knex.schema.withSchema(schema).createTable('products', (t) => {
      t.increments('id').primary();
      t.text('external_id').notNullable().unique();
      t.text('name').notNullable();
      t.text('sku').notNullable().defaultTo('');
      t.text('status').notNullable().defaultTo('');
      t.boolean('visible').notNullable();
      t.text('description').notNullable().defaultTo('');
      t.text('excerpt').notNullable().defaultTo('');
      t.text('meta_title').notNullable().defaultTo('');
      t.text('meta_description').notNullable().defaultTo('');
      t.text('meta_keywords').notNullable().defaultTo('');
      t.text('country_of_origin').notNullable().defaultTo('');
      t.text('harm_code').notNullable().defaultTo('');
      t.integer('brand_id').nullable().references('id').inTable(`${schema}.brands`);
      t.integer('collection_id').nullable().references('id').inTable(`${schema}.collections`);
      t.integer('category_id').nullable().references('id').inTable(`${schema}.categories`);
      t.jsonb('media').notNullable().defaultTo('[]');
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('modified_at', { useTz: true }).notNullable();
    });
    await knex.schema.withSchema(schema).createTable('variants', (t) => {
      t.increments('id').primary();
      t.integer('product_id').notNullable().references('id').inTable(`${schema}.products`);
      t.text('external_id').notNullable();
      t.text('name').notNullable().defaultTo('');
      t.text('sku').notNullable().defaultTo('');
      t.text('status').notNullable().defaultTo('');
      t.boolean('visible').notNullable();
      t.text('uri').notNullable().unique();
      t.integer('position').notNullable();
      t.jsonb('category_ids').notNullable().defaultTo('[]');
      t.integer('item_quantity_minimum').notNullable().defaultTo(1);
      t.integer('item_quantity_multiple_of').notNullable().defaultTo(1);
      t.unique(['product_id', 'external_id']);
    });
    await knex.schema.withSchema(schema).createTable('items', (t) => {
      t.text('id').primary();
      t.integer('variant_id').notNullable().references('id').inTable(`${schema}.variants`);
      t.integer('size_id').notNullable().references('id').inTable(`${schema}.sizes`);
      t.text('sku').notNullable().defaultTo('');
      t.text('ean').notNullable().defaultTo('');
      t.integer('stock').notNullable().defaultTo(0);
      t.boolean('preorder').notNullable().defaultTo(false);
      t.integer('position').notNullable();
      t.index(['variant_id']);
    });
    // Filled by pricelists (a later issue); keyed by pricelist and the checkout API's product (variant) id.
    await knex.schema.withSchema(schema).createTable('prices', (t) => {
      t.text('pricelist').notNullable();
      t.integer('product_id').notNullable();
      t.decimal('price', 14, 2).notNullable();
      t.decimal('price_before_discount', 14, 2).nullable();
      t.text('currency').notNullable();
      t.primary(['pricelist', 'product_id']);
    });
  },
};

/**
 * Every catalog entity of the back office: the category tree (positions, full paths), sizes with their
 * size tables, stock per warehouse, markets and the variants' markets, pricelists and their prices by the
 * ERP's ids, delivery windows. The never-filled `prices` table of 001 gives way to `pricelist_items`.
 */
const catalogEntities: Migration = {
  name: 'catalog_002_entities',
  async up(knex, schema) {
    // A fresh schema builder per statement: a knex SchemaBuilder accumulates, and awaiting one reruns all it holds.
    const s = {
      alterTable: (...a: Parameters<Knex.SchemaBuilder['alterTable']>) => knex.schema.withSchema(schema).alterTable(...a),
      createTable: (...a: Parameters<Knex.SchemaBuilder['createTable']>) => knex.schema.withSchema(schema).createTable(...a),
      dropTable: (name: string) => knex.schema.withSchema(schema).dropTable(name),
    };
    await s.alterTable('categories', (t) => {
      t.integer('position').notNullable().defaultTo(0);
      t.boolean('configured').notNullable().defaultTo(false);
      t.jsonb('name_path').notNullable().defaultTo('[]');
    });
    await knex(`${schema}.categories`).update({ name_path: knex.raw('jsonb_build_array(name)'), position: knex.raw('id') });
    await s.alterTable('categories', (t) => t.index(['parent_id']));

    await s.createTable('size_tables', (t) => {
      t.text('external_id').primary();
      t.text('description').notNullable().defaultTo('');
      t.integer('stock_divisor').notNullable().defaultTo(1);
      t.text('stock_unit').notNullable().defaultTo('');
    });
    await s.alterTable('sizes', (t) => {
      t.text('sku').notNullable().defaultTo('');
      t.text('ean').notNullable().defaultTo('');
      t.text('comment').notNullable().defaultTo('');
      // By external id: a size may name its table before sizes_Update describes it.
      t.text('size_table_external_id').nullable().index();
    });

    await s.alterTable('products', (t) => {
      t.text('harm_code_description').notNullable().defaultTo('');
      t.text('weight_value').notNullable().defaultTo('');
      t.text('weight_unit').notNullable().defaultTo('');
      t.text('comment').notNullable().defaultTo('');
    });
    await s.alterTable('variants', (t) => {
      t.text('stock_id').notNullable().defaultTo('');
      t.text('size_table_external_id').nullable().index();
      // Null: the displays never named a market, so every market.
      t.jsonb('markets').nullable();
      t.index(['external_id']);
    });
    await s.alterTable('items', (t) => {
      t.integer('qty').notNullable().defaultTo(0);
      t.index(['size_id']);
    });
    await knex(`${schema}.items`).update({ qty: knex.raw('stock') });
    await s.createTable('item_stock', (t) => {
      t.text('item_id').notNullable().references('id').inTable(`${schema}.items`);
      t.text('warehouse').notNullable();
      t.integer('qty').notNullable();
      t.primary(['item_id', 'warehouse']);
    });

    await s.createTable('markets', (t) => {
      t.text('external_id').primary();
      t.text('store').notNullable().defaultTo('');
      t.text('type').notNullable().defaultTo('');
      t.text('description').notNullable().defaultTo('');
    });
    await s.createTable('warehouses', (t) => {
      t.text('external_id').primary();
      t.text('description').notNullable().defaultTo('');
    });

    await s.dropTable('prices');
    await s.createTable('pricelists', (t) => {
      t.text('external_id').primary();
      t.text('store').notNullable().defaultTo('');
      t.text('type').notNullable().defaultTo('');
      t.text('currency').notNullable().defaultTo('');
      t.text('description').notNullable().defaultTo('');
    });
    // By the ERP's ids, so that a price may arrive before its product; amounts in minor units.
    await s.createTable('pricelist_items', (t) => {
      t.text('pricelist').notNullable();
      t.text('product_external_id').notNullable();
      t.text('variation_external_id').notNullable().defaultTo('');
      t.bigInteger('price').notNullable();
      t.bigInteger('price_before_discount').nullable();
      t.primary(['pricelist', 'product_external_id', 'variation_external_id']);
      t.index(['product_external_id']);
    });

    await s.createTable('delivery_windows', (t) => {
      t.text('external_id').primary();
      t.text('status').notNullable().defaultTo('');
      t.text('description').notNullable().defaultTo('');
      t.timestamp('starts_at', { useTz: true }).nullable();
      t.timestamp('stops_at', { useTz: true }).nullable();
      t.boolean('at_once').notNullable().defaultTo(false);
      t.boolean('active_indexed').notNullable().defaultTo(false);
    });
    await s.createTable('delivery_window_variations', (t) => {
      t.text('window').notNullable().references('external_id').inTable(`${schema}.delivery_windows`);
      t.text('variation_external_id').notNullable();
      t.text('type').notNullable().defaultTo('');
      t.integer('product_limit').nullable();
      t.integer('variation_limit').nullable();
      t.primary(['window', 'variation_external_id']);
      t.index(['variation_external_id']);
    });
  },
};

/**
 * The variant URIs a product's names may lead to are looked up by their base (the URI without a `-<n>`
 * suffix, `variantUris`): an index on that expression, so a SOAP batch's lookups do not scan every
 * variant of the catalog (decision 64).
 */
const variantUriBaseIndex: Migration = {
  name: 'catalog_003_variant_uri_base',
  async up(knex, schema) {
    await knex.raw(`create index if not exists variants_uri_base on ?? ((regexp_replace(uri, '-[0-9]+$', '')))`, [`${schema}.variants`]);
  },
};

/**
 * The item rows' foreign keys go (decision 80): `items.variant_id` → variants, `items.size_id` → sizes and
 * `item_stock.item_id` → items were checked row by row, ~45 % of Postgres's CPU for the ~14,000 items and
 * ~42,000 stock rows of a 1,000-product SOAP batch. The one code that writes these rows
 * (`saveProducts`) writes the variant, then its items, then their stock, in one transaction, from ids
 * that transaction just wrote or read; nothing deletes variants, items or sizes. The indexes stay.
 */
const ITEM_FOREIGN_KEYS = [
  ['items', 'items_variant_id_foreign', 'variant_id', 'variants'],
  ['items', 'items_size_id_foreign', 'size_id', 'sizes'],
  ['item_stock', 'item_stock_item_id_foreign', 'item_id', 'items'],
] as const;
const itemForeignKeysDropped: Migration = {
  name: 'catalog_004_item_rows_without_foreign_keys',
  async up(knex, schema) {
    for (const [table, constraint] of ITEM_FOREIGN_KEYS)
      await knex.raw('alter table ?? drop constraint if exists ??', [`${schema}.${table}`, constraint]);
  },
  async down(knex, schema) {
    for (const [table, constraint, column, target] of ITEM_FOREIGN_KEYS)
      await knex.raw('alter table ?? add constraint ?? foreign key (??) references ?? (id)', [
        `${schema}.${table}`,
        constraint,
        column,
        `${schema}.${target}`,
      ]);
  },
};

/** The catalog's schema: its tables plus the shared outbox and processed-events tables. */
export const catalogMigrations: Migration[] = [
  ...outboxMigrations,
  catalogTables,
  catalogEntities,
  stockHoldsMigration,
  stockHoldsLostMigration,
  variantUriBaseIndex,
  itemForeignKeysDropped,
  searchQueriesMigration,
  stockHoldsHeldMigration,
];
