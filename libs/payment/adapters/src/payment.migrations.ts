import type { Migration } from '@commerce/shared-db';
import { outboxMigrations } from '@commerce/shared-bus';

const attempts: Migration = {
  name: 'payment_001_attempts',
  async up(knex, schema) {
    await knex.schema.withSchema(schema).createTable('attempts', (t) => {
      // The edge's attempt id: the idempotency key of a start.
      t.uuid('id').primary();
      t.text('payment_method').notNullable();
      t.text('provider').notNullable();
      t.text('status').notNullable();
      t.text('selection_id').notNullable();
      t.bigInteger('amount_minor').notNullable();
      t.text('currency').notNullable();
      t.text('country').notNullable();
      t.text('provider_reference').notNullable().defaultTo('');
      t.text('return_url').notNullable();
      t.text('failed_url').notNullable();
      t.jsonb('address').notNullable();
      t.jsonb('customer_address').nullable();
      t.jsonb('order_draft').notNullable();
      t.jsonb('provider_data').notNullable().defaultTo('{}');
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.index(['selection_id', 'status']);
    });
    // A provider's reference names one attempt (empty until the provider answered).
    await knex.raw(
      `create unique index attempts_provider_reference on ??.attempts (provider, provider_reference) where provider_reference <> ''`,
      [schema],
    );
  },
};

/** The payment service's schema: attempts plus the shared outbox and processed-events tables. */
export const paymentMigrations: Migration[] = [...outboxMigrations, attempts];
