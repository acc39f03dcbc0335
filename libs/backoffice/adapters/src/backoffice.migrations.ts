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

/**
 * The change-event feed (`events_Get`): events in id order, and per SOAP user what is done. A user's
 * `done_through` says every event up to it is done, so the acknowledgements below it are dropped and a
 * list starts there; `event_acks` holds only those done above it.
 */
const changeEvents: Migration = {
  name: 'backoffice_003_change_events',
  async up(knex, schema) {
    await knex.schema.withSchema(schema).createTable('change_events', (t) => {
      t.bigIncrements('id').primary();
      t.string('type', 32).notNullable();
      t.string('entry', 255).notNullable();
      t.string('mission', 16).notNullable();
      t.string('market', 255).nullable();
      t.jsonb('data').notNullable();
      t.timestamp('occurred_at', { useTz: true }).notNullable();
      t.text('source_event_id').nullable();
      // events_Get by type and events_GetByMarkets page by id within these (keyset, never offset).
      t.index(['type', 'id'], 'change_events_type_id_idx');
      t.index(['market', 'id'], 'change_events_market_id_idx');
    });
    await knex.schema.withSchema(schema).createTable('event_acks', (t) => {
      t.string('username', 255).notNullable();
      t.bigInteger('event_id').notNullable();
      t.primary(['username', 'event_id']);
    });
    await knex.schema.withSchema(schema).createTable('event_cursors', (t) => {
      t.string('username', 255).primary();
      t.bigInteger('done_through').notNullable().defaultTo(0);
    });
    // Whether a catalog event was caused by one of our SOAP requests (echo suppression).
    await knex.schema
      .withSchema(schema)
      .alterTable('received_upserts', (t) => void t.index(['request_id'], 'received_upserts_request_id_idx'));
  },
  async down(knex, schema) {
    await knex.schema
      .withSchema(schema)
      .alterTable('received_upserts', (t) => void t.dropIndex(['request_id'], 'received_upserts_request_id_idx'));
    await knex.schema.withSchema(schema).dropTableIfExists('event_cursors');
    await knex.schema.withSchema(schema).dropTableIfExists('event_acks');
    await knex.schema.withSchema(schema).dropTableIfExists('change_events');
  },
};

/**
 * The received entities are written once and never queried by their content: `json` keeps the text as
 * sent, where `jsonb` converted it to its binary form at about twice the cost of the insert (decision 52).
 */
const receivedPayloadAsJson: Migration = {
  name: 'backoffice_004_received_upserts_payload_json',
  async up(knex, schema) {
    await knex.raw('alter table ??.received_upserts alter column payload type json using payload::json', [schema]);
  },
  async down(knex, schema) {
    await knex.raw('alter table ??.received_upserts alter column payload type jsonb using payload::jsonb', [schema]);
  },
};

/**
 * The batch is written once (decision 73): a received row refers to its event (`event_id`, the outbox row's
 * id), whose envelope holds the entity, instead of holding a second copy of it. Rows written before keep
 * their `payload` (and no event). No foreign key (its check cost a fifth of the batch's statement): the two
 * rows are written by one statement, and the retention pruner keeps an outbox row while a received row
 * refers to it (`refersToOutbox`), so a received row always has its entity — unless outbox rows are deleted
 * by hand: then `readReceivedUpserts` skips and reports the row (decision 77).
 */
const receivedRefersToEvent: Migration = {
  name: 'backoffice_005_received_upserts_event_id',
  async up(knex, schema) {
    await knex.raw('alter table ??.received_upserts alter column payload drop not null', [schema]);
    await knex.raw('alter table ??.received_upserts add column event_id uuid', [schema]);
    await knex.raw(
      'alter table ??.received_upserts add constraint received_upserts_payload_or_event check (payload is not null or event_id is not null)',
      [schema],
    );
    // The pruner asks, for each sent outbox row, whether a received row still refers to it.
    await knex.raw('create index received_upserts_event_id_idx on ??.received_upserts (event_id)', [schema]);
  },
  async down(knex, schema) {
    await knex.raw(
      `update ??.received_upserts r set payload = o.envelope -> 'payload' -> r.entity from ??.outbox o where o.id = r.event_id and r.payload is null`,
      [schema, schema],
    );
    await knex.raw('delete from ??.received_upserts where payload is null', [schema]);
    await knex.raw('alter table ??.received_upserts drop column event_id', [schema]);
    await knex.raw('alter table ??.received_upserts alter column payload set not null', [schema]);
  },
};

/**
 * `events_GetByMarkets`' index holds only the events that have a market (decision 192): it answers
 * `market in (…)`, which no event without one matches, and most of the feed has none (each `stock` event of an
 * order's commit), so each of those rows wrote an index entry no plan read.
 */
const marketIndexOfMarketEvents: Migration = {
  name: 'backoffice_006_change_events_market_index_partial',
  async up(knex, schema) {
    await knex.raw('drop index if exists ??.change_events_market_id_idx', [schema]);
    await knex.raw('create index change_events_market_id_idx on ??.change_events (market, id) where market is not null', [schema]);
  },
  async down(knex, schema) {
    await knex.raw('drop index if exists ??.change_events_market_id_idx', [schema]);
    await knex.raw('create index change_events_market_id_idx on ??.change_events (market, id)', [schema]);
  },
};

export const backofficeMigrations: Migration[] = [
  ...outboxMigrations,
  receivedUpserts,
  receivedAtIndex,
  changeEvents,
  receivedPayloadAsJson,
  receivedRefersToEvent,
  marketIndexOfMarketEvents,
];
