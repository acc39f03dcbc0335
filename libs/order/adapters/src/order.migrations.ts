import type { Migration } from '@commerce/shared-db';
import { outboxMigrations } from '@commerce/shared-bus';

export const orderMigrations: Migration[] = [
  ...outboxMigrations,
  {
    // Issue 10: orders, their numbers per store, shipments, cancelled lines and invoices.
    name: '001_orders',
    async up(knex, schema) {
      await knex.schema.withSchema(schema).createTable('order_numbers', (t) => {
        t.string('store', 64).primary();
        t.bigInteger('last').notNullable();
      });
      await knex.schema.withSchema(schema).createTable('orders', (t) => {
        t.uuid('id').primary();
        t.string('store', 64).notNullable();
        t.bigInteger('number').notNullable();
        // One payment attempt, one order: the key every concurrent placing of an attempt meets.
        t.string('payment_attempt_id', 128).notNullable().unique();
        t.string('customer_id', 64).nullable();
        t.timestamp('placed_at', { useTz: true }).notNullable();
        t.string('status', 64).notNullable();
        t.integer('version').notNullable();
        // The priced selection as placed (lines, totals, addresses, currency format): read whole, never queried into.
        t.jsonb('snapshot').notNullable();
        t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
        t.unique(['store', 'number']);
      });
      // A page of a customer's history is an index range: the same cost at 10 orders as at 10,000.
      await knex.raw(
        'create index orders_customer_placed on ??.orders (customer_id, placed_at desc, number desc) where customer_id is not null',
        [schema],
      );
      // How many orders a customer has, kept with each placing: ordersPaging.totalSize without counting.
      await knex.schema.withSchema(schema).createTable('customer_order_counts', (t) => {
        t.string('customer_id', 64).primary();
        t.integer('orders').notNullable();
      });
      await knex.schema.withSchema(schema).createTable('order_shipments', (t) => {
        t.bigIncrements('seq').primary();
        t.uuid('order_id').notNullable().references('id').inTable(`${schema}.orders`).onDelete('CASCADE');
        t.string('shipment', 128).notNullable();
        t.string('shipped_date', 64).notNullable().defaultTo('');
        t.text('carrier').notNullable().defaultTo('');
        t.text('service').notNullable().defaultTo('');
        t.text('tracking_id').notNullable().defaultTo('');
        t.text('tracking_url').notNullable().defaultTo('');
        t.unique(['order_id', 'shipment']);
      });
      await knex.schema.withSchema(schema).createTable('order_cancelled_lines', (t) => {
        t.uuid('order_id').notNullable().references('id').inTable(`${schema}.orders`).onDelete('CASCADE');
        t.string('item', 128).notNullable();
        t.text('sku').notNullable().defaultTo('');
        t.integer('quantity').notNullable();
        t.primary(['order_id', 'item']);
      });
      await knex.schema.withSchema(schema).createTable('order_invoices', (t) => {
        t.string('invoice', 128).primary();
        t.uuid('order_id').notNullable().references('id').inTable(`${schema}.orders`).onDelete('CASCADE');
        t.jsonb('data').notNullable();
        t.index(['order_id']);
      });
    },
  },
  {
    // Issue 28: an order the checkout saga placed while its selection's closing had failed; false for the rest
    // (closed before the order was placed, or placed outside a checkout): the consumer of PaymentAuthorized
    // closes only those at the cart.
    name: '002_orders_selection_left_open',
    async up(knex, schema) {
      await knex.schema.withSchema(schema).alterTable('orders', (t) => {
        t.boolean('selection_left_open').notNullable().defaultTo(false);
      });
    },
  },
];
