import type { Migration } from '@commerce/shared-db';
import { outboxMigrations } from '@commerce/shared-bus';

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

/** The catalog's schema: its tables plus the shared outbox and processed-events tables. */
export const catalogMigrations: Migration[] = [...outboxMigrations, catalogTables];
