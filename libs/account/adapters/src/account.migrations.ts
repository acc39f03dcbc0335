import type { Migration } from '@commerce/shared-db';

export const accountMigrations: Migration[] = [
  {
    name: '001_customers_and_credentials',
    async up(knex, schema) {
      await knex.schema.withSchema(schema).createTable('customers', (t) => {
        t.uuid('id').primary();
        // The key an e-mail is found by: trimmed and lower-cased; unique, so a registration race has one winner.
        t.string('email_key', 254).notNullable().unique();
        t.string('email', 254).notNullable();
        t.string('first_name', 200).notNullable().defaultTo('');
        t.string('last_name', 200).notNullable().defaultTo('');
        t.string('address1', 200).notNullable().defaultTo('');
        t.string('address2', 200).notNullable().defaultTo('');
        t.string('city', 200).notNullable().defaultTo('');
        t.string('state', 200).notNullable().defaultTo('');
        t.string('country', 2).notNullable().defaultTo('');
        t.string('phone_number', 200).notNullable().defaultTo('');
        t.string('zip_code', 200).notNullable().defaultTo('');
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
        t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      });
      // Credentials apart from the profile: what reads a customer never reads a hash by accident.
      await knex.schema.withSchema(schema).createTable('credentials', (t) => {
        t.uuid('customer_id').primary().references('id').inTable(`${schema}.customers`).onDelete('CASCADE');
        t.text('password_hash').notNullable();
        t.timestamp('changed_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      });
    },
  },
];
