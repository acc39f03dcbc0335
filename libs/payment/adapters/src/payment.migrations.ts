import type { Knex, Migration } from '@commerce/shared-db';
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

/** Set on a replaced attempt whose authorization is still to be voided at the provider (the payment sweep does it). */
const addProviderVoidDue = (knex: Knex, schema: string) =>
  knex.raw(`alter table ??.attempts add column if not exists provider_void_due boolean not null default false`, [schema]);

/**
 * One live attempt per selection (DESIGN §8; decision 131): started or authorized, at most one, so a selection
 * is never charged twice whatever the edge does. Started attempts of a selection that has an authorized or a
 * newer started one are cancelled first, as starting the newer one should have done (no event: they were
 * replaced long ago). A selection with two or more authorized attempts (the double charge of issue 22) keeps its
 * first authorized attempt; the later ones are replaced (`cancelled`, `replaced`) with their void at the provider
 * due (`provider_void_due`), which the payment service's sweep carries out (a migration calls no provider), as
 * for any authorization arriving for a replaced attempt; their orders, if any, are for an operator (decision 141).
 */
const oneLiveAttemptPerSelection: Migration = {
  name: 'payment_002_one_live_attempt_per_selection',
  async up(knex, schema) {
    await addProviderVoidDue(knex, schema);
    await knex.raw(
      `update ??.attempts a set status = 'cancelled', provider_void_due = true, updated_at = now()
        where a.status = 'authorized'
          and exists (select 1 from ??.attempts b where b.selection_id = a.selection_id and b.id <> a.id
                      and b.status = 'authorized' and (b.created_at, b.id) < (a.created_at, a.id))`,
      [schema, schema],
    );
    await knex.raw(
      `update ??.attempts a set status = 'cancelled', updated_at = now()
        where a.status = 'started'
          and exists (select 1 from ??.attempts b where b.selection_id = a.selection_id and b.id <> a.id
                      and (b.status = 'authorized' or (b.status = 'started' and (b.created_at, b.id) > (a.created_at, a.id))))`,
      [schema, schema],
    );
    // Cancelled because a newer attempt replaced it: an authorization arriving for it is voided, never kept.
    await knex.schema.withSchema(schema).alterTable('attempts', (t) => {
      t.boolean('replaced').notNullable().defaultTo(false);
    });
    await knex.raw(`update ??.attempts set replaced = true where status = 'cancelled'`, [schema]);
    await knex.raw(
      `create unique index attempts_one_live_per_selection on ??.attempts (selection_id) where status in ('started', 'authorized')`,
      [schema],
    );
  },
};

/**
 * What the payment sweep reads: the void due on a replaced attempt (already there where the migration before ran in
 * its present form), and the started attempts by age (the expiry of abandoned ones).
 */
const paymentSweep: Migration = {
  name: 'payment_003_sweep',
  async up(knex, schema) {
    await addProviderVoidDue(knex, schema);
    await knex.raw(`create index if not exists attempts_started_by_age on ??.attempts (created_at) where status = 'started'`, [schema]);
    await knex.raw(`create index if not exists attempts_void_due on ??.attempts (created_at) where provider_void_due`, [schema]);
  },
};

/**
 * The `(selection_id, status)` index of the first migration is gone (decision 191): every read of a selection's
 * attempts asks for its live ones (`status in ('started', 'authorized')`), which `attempts_one_live_per_selection`
 * answers, so no plan used it, and each insert and status move (never a HOT update: `status` is in the partial
 * indexes' predicates) wrote an entry into it.
 */
const dropSelectionStatusIndex: Migration = {
  name: 'payment_004_drop_selection_status_index',
  async up(knex, schema) {
    await knex.raw(`drop index if exists ??.attempts_selection_id_status_index`, [schema]);
  },
  async down(knex, schema) {
    await knex.raw(`create index if not exists attempts_selection_id_status_index on ??.attempts (selection_id, status)`, [schema]);
  },
};

/** The payment service's schema: attempts plus the shared outbox and processed-events tables. */
export const paymentMigrations: Migration[] = [
  ...outboxMigrations,
  attempts,
  oneLiveAttemptPerSelection,
  paymentSweep,
  dropSelectionStatusIndex,
];
