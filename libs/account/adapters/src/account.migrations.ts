import { outboxMigrations } from '@commerce/shared-bus';
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
  {
    name: '002_password_reset_and_subscriptions',
    async up(knex, schema) {
      // A password reset raises it: sessions logged in with an older value are logged out (decision 43).
      await knex.schema.withSchema(schema).alterTable('customers', (t) => {
        t.integer('session_epoch').notNullable().defaultTo(0);
      });
      await knex.schema.withSchema(schema).createTable('reset_tokens', (t) => {
        t.uuid('id').primary();
        t.uuid('customer_id').notNullable().references('id').inTable(`${schema}.customers`).onDelete('CASCADE').index();
        // SHA-256 of the 256-bit secret of the link: the database never holds a usable link.
        t.string('secret_hash', 64).notNullable();
        t.timestamp('expires_at', { useTz: true }).notNullable().index();
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      });
      await knex.schema.withSchema(schema).createTable('newsletter_subscriptions', (t) => {
        t.string('email_key', 254).primary();
        t.string('email', 254).notNullable();
        t.string('country', 2).nullable();
        t.string('language', 16).nullable();
        // When consent was given (the first subscription); a repeated one keeps it.
        t.timestamp('consented_at', { useTz: true }).notNullable();
        t.timestamp('updated_at', { useTz: true }).notNullable();
      });
      await knex.schema.withSchema(schema).createTable('back_in_stock_subscriptions', (t) => {
        t.uuid('id').primary();
        t.string('email_key', 254).notNullable();
        t.string('email', 254).notNullable();
        t.string('item', 40).notNullable();
        t.string('product', 20).notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.timestamp('notified_at', { useTz: true }).nullable();
      });
      // One open request per e-mail and item; the stock consumer looks open requests up by product.
      await knex.raw(
        'create unique index back_in_stock_open on ??.back_in_stock_subscriptions (email_key, item) where notified_at is null',
        [schema],
      );
      await knex.raw('create index back_in_stock_product on ??.back_in_stock_subscriptions (product) where notified_at is null', [schema]);
    },
  },
  ...outboxMigrations,
  {
    name: '003_backoffice_entities',
    async up(knex, schema) {
      await knex.schema.withSchema(schema).alterTable('customers', (t) => {
        // The back office may send a customer without an e-mail; the unique index allows any number of nulls.
        t.string('email_key', 254).nullable().alter();
        // `customer:<id>` or `buyer:<id>`: the ERP's id, in two namespaces.
        t.string('external_key', 300).nullable().unique();
        t.string('status', 100).nullable();
        // A buyer's account, market and pricelist (ERP ids).
        t.string('account_id', 200).nullable();
        t.string('market', 200).nullable();
        t.string('pricelist', 200).nullable();
      });
      // Accounts (buyers' hashes left out), sales reps, payment and shipping terms, as the ERP sent them (merged).
      await knex.schema.withSchema(schema).createTable('backoffice_entities', (t) => {
        t.string('entity', 20).notNullable();
        t.string('id', 200).notNullable();
        t.jsonb('data').notNullable();
        t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
        t.primary(['entity', 'id']);
      });
    },
  },
  {
    name: '004_reset_mails',
    async up(knex, schema) {
      // Password-reset mails asked for: written before the answer, sent by the relay, marked once done (decision 47).
      await knex.schema.withSchema(schema).createTable('reset_mails', (t) => {
        t.uuid('id').primary();
        t.string('email', 254).notNullable();
        t.string('link_path', 512).notNullable();
        t.timestamp('requested_at', { useTz: true }).notNullable();
        t.integer('attempts').notNullable().defaultTo(0);
        // When a relay may take it: now for a new request, a lease while one sends it, the backoff after a failure.
        t.timestamp('next_attempt_at', { useTz: true }).notNullable();
        t.text('last_error').nullable();
        t.timestamp('done_at', { useTz: true }).nullable();
        // 'sent', 'no customer' or 'expired'.
        t.string('outcome', 20).nullable();
      });
      await knex.raw('create index reset_mails_due on ??.reset_mails (next_attempt_at) where done_at is null', [schema]);
      await knex.raw('create index reset_mails_done on ??.reset_mails (done_at) where done_at is not null', [schema]);
    },
  },
];
