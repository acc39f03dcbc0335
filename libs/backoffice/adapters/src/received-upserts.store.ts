import { outboxBatch, outboxInputSql, outboxInsertSql, outboxWritten, type RetainedTable } from '@commerce/shared-bus';
import type { Db } from '@commerce/shared-db';
import type { UpsertStore } from '@commerce/backoffice-core';
import type { EventEnvelope } from '@commerce/shared-events';

/**
 * The UpsertStore on knex (Postgres or PGlite): the entities and their outbox rows in one transaction —
 * one statement, whatever the batch's size. The envelopes go to the database once, as one JSON array
 * (one bind parameter: a 1,000-product batch is ~4.5 MB, where a multi-row insert of each table sent it
 * twice as 5,000-odd parameters that knex and pg numbered and framed one by one); each envelope becomes
 * an outbox row, and the entity its payload holds (`payload -> '<entity>'`, the text as sent) a
 * received_upserts row, both in the batch's order.
 */
/** The id of the entity an upsert event carries (`payload[entity].id`), passed beside the JSON rather than read out of it. */
function externalIdOf(event: EventEnvelope, entity: string): string {
  const carried = (event.payload as Record<string, { id?: unknown } | undefined>)[entity]?.id;
  if (typeof carried !== 'string') throw new Error(`an upsert event of ${entity} without its entity's id`);
  return carried;
}

export function createReceivedUpsertsStore(db: Db): UpsertStore {
  return {
    async saveBatch(entity, events, requestId) {
      if (events.length === 0) return;
      await db.knex.raw(
        `with input as (${outboxInputSql}),
           received as (
             insert into :received: (entity, external_id, payload, request_id)
             select :entity, x.external_id, input.e -> 'payload' -> cast(:entity as text), :requestId
             from input join unnest(cast(:externalIds as text[])) with ordinality as x(external_id, n) on x.n = input.n
             order by input.n
           )
         ${outboxInsertSql('input', ':outbox:')}`,
        {
          ...outboxBatch(events),
          externalIds: events.map((event) => externalIdOf(event, entity)),
          received: `${db.schema}.received_upserts`,
          outbox: `${db.schema}.outbox`,
          entity,
          requestId: requestId ?? null,
        },
      );
      outboxWritten(db);
    },
  };
}

/**
 * What the retention pruner may delete from received_upserts: batches older than `retentionMs` whose
 * events were all published (a batch and its outbox rows are written in one transaction).
 */
export const receivedUpsertsRetention = (retentionMs: number): RetainedTable => ({
  table: 'received_upserts',
  key: ['seq'],
  writtenAt: 'received_at',
  retentionMs,
  publishedThroughOutbox: true,
});
