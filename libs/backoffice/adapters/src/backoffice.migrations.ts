import { outboxMigrations } from '@commerce/shared-bus';
import type { Migration } from '@commerce/shared-db';

/**
 * Every entity the ERP sent, as it was accepted, in arrival order. It is the durable record the SOAP
 * reply promises ("OK" only once written), and what a replay of `backoffice.upsert.v1` can be rebuilt from.
 */
const receivedUpserts: Migration = {
  name: 'backoffice_001_received_upserts',
  async up(knex, schema) {
    await knex.schema.withSchema(schema).createTable('received_upserts', (t) => {
      t.bigIncrements('seq').primary();
      t.string('entity', 32).notNullable();
      t.string('external_id', 255).notNullable();
      t.jsonb('payload').notNullable();
      t.string('request_id', 128).nullable();
      t.timestamp('received_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.index(['entity', 'external_id', 'seq'], 'received_upserts_entity_external_id_idx');
    });
  },
  async down(knex, schema) {
    await knex.schema.withSchema(schema).dropTableIfExists('received_upserts');
  },
};

/** The retention pruner deletes the oldest batches first. */
const receivedAtIndex: Migration = {
  name: 'backoffice_002_received_upserts_received_at',
  async up(knex, schema) {
    await knex.schema
      .withSchema(schema)
      .alterTable('received_upserts', (t) => void t.index(['received_at'], 'received_upserts_received_at_idx'));
  },
  async down(knex, schema) {
    await knex.schema
      .withSchema(schema)
      .alterTable('received_upserts', (t) => void t.dropIndex(['received_at'], 'received_upserts_received_at_idx'));
  },
};

export const backofficeMigrations: Migration[] = [...outboxMigrations, receivedUpserts, receivedAtIndex];
