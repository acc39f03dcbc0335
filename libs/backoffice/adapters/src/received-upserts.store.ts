import { outboxBatch, outboxInputSql, outboxInsertSql, outboxWritten, type RetainedTable } from '@commerce/shared-bus';
import type { Db } from '@commerce/shared-db';
import type { UpsertStore } from '@commerce/backoffice-core';
import type { EventEnvelope } from '@commerce/shared-events';

/**
 * The UpsertStore on knex (Postgres or PGlite): the entities and their outbox rows in one transaction —
 * one statement, whatever the batch's size (`saveChunks`: one a chunk, in one transaction, decision 79).
 * The envelopes go to the database once, as one JSON array (one bind parameter: a 1,000-product batch is ~4.5 MB, where a multi-row insert of each table sent it
 * twice as 5,000-odd parameters that knex and pg numbered and framed one by one); each envelope becomes
 * an outbox row, and each entity a received_upserts row that refers to its event (`event_id`, the outbox
 * row's id) instead of holding a second copy of the entity, both in the batch's order (decision 73): the
 * batch is written once. The entity a received row stands for is its event's `payload -> '<entity>'`
 * (`readReceivedUpserts`).
 */
/** The id of the entity an upsert event carries (`payload[entity].id`), passed beside the JSON rather than read out of it. */
function externalIdOf(event: EventEnvelope, entity: string): string {
  const carried = (event.payload as Record<string, { id?: unknown } | undefined>)[entity]?.id;
  if (typeof carried !== 'string') throw new Error(`an upsert event of ${entity} without its entity's id`);
  return carried;
}

/** One statement: a batch's (or a chunk's) outbox rows and their received rows, in its order. */
const SAVE_SQL = `with input as (${outboxInputSql}),
   received as (
     insert into :received: (entity, external_id, event_id, request_id)
     select :entity, x.external_id, input.id, :requestId
     from input join unnest(cast(:externalIds as text[])) with ordinality as x(external_id, n) on x.n = input.n
     order by input.n
   )
 ${outboxInsertSql('input', ':outbox:')}`;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export function createReceivedUpsertsStore(db: Db): UpsertStore {
  const bindingsOf = (entity: string, events: readonly EventEnvelope[], requestId: string | undefined) => ({
    ...outboxBatch(events),
    externalIds: events.map((event) => externalIdOf(event, entity)),
    received: `${db.schema}.received_upserts`,
    outbox: `${db.schema}.outbox`,
    entity,
    requestId: requestId ?? null,
  });
  return {
    async saveBatch(entity, events, requestId) {
      if (events.length === 0) return;
      await db.knex.raw(SAVE_SQL, bindingsOf(entity, events, requestId));
      outboxWritten(db);
    },

    /**
     * One transaction; each chunk is one statement, serialised as soon as the chunk is made and sent as
     * soon as the statement before it answered (the connection runs one at a time): Postgres parses and
     * writes a chunk while this process makes the next (decision 79). A turn of the event loop after each
     * chunk lets a statement go out and the one before answer. The chunks may come asynchronously (decision 91).
     * `Db.transaction` runs the whole transaction again after a stale prepared plan (decision 179; rolled back):
     * the chunks are read once (a parse's generator is not read twice), and a run again sends those read so far
     * before it reads on.
     */
    async saveChunks(entity, chunks, requestId) {
      const source = Symbol.asyncIterator in chunks ? chunks[Symbol.asyncIterator]() : chunks[Symbol.iterator]();
      const read: EventEnvelope[][] = [];
      async function* chunksOfRun(): AsyncGenerator<EventEnvelope[]> {
        yield* read.slice();
        for (let next = await source.next(); !next.done; next = await source.next()) {
          read.push(next.value);
          yield next.value;
        }
      }
      let written = 0;
      await db.transaction(async (trx) => {
        written = 0;
        let failed: { error: unknown } | undefined;
        // The statements in turn; it never rejects (a failure is kept in `failed`).
        let writes: Promise<unknown> = Promise.resolve();
        try {
          for await (const events of chunksOfRun()) {
            // After a failed write the rest is still made (a refused entity's Fault comes first), not sent.
            if (failed || events.length === 0) continue;
            const bindings = bindingsOf(entity, events, requestId);
            writes = writes
              .then(() => (failed ? undefined : trx.raw(SAVE_SQL, bindings)))
              .catch((error: unknown) => {
                failed ??= { error };
              });
            written += events.length;
            await nextTurn();
          }
        } finally {
          // Whatever ends the iteration, no statement is left running when the transaction ends.
          await writes;
        }
        if (failed) throw failed.error;
      });
      if (written > 0) outboxWritten(db);
    },
  };
}

/** A received_upserts row as read back: `payload` is the entity as the ERP sent it. */
export interface ReceivedUpsert {
  seq: number | string;
  entity: string;
  external_id: string;
  payload: unknown;
  request_id: string | null;
  received_at: Date | string;
  event_id: string | null;
}

/** A received_upserts row whose entity is gone: its outbox row was deleted by hand (decision 77). */
export type OrphanedReceivedUpsert = Omit<ReceivedUpsert, 'payload'>;

/** What `readReceivedUpserts` read: the entities, and the rows it skipped for want of theirs. */
export interface ReceivedUpsertsRead {
  upserts: ReceivedUpsert[];
  orphans: OrphanedReceivedUpsert[];
}

/**
 * The received entities in arrival order (what a rebuild of `backoffice.upsert.v1`, or a test, reads):
 * the entity is the one its event carries (`outbox.envelope -> 'payload' -> entity`), or, for a row
 * written before decision 73, the row's own `payload`. A row that refers to an outbox row no longer there
 * (deleted by hand: the pruner never does) has no entity: it is skipped and returned in `orphans`, for the
 * caller to report, rather than replayed as a null entity (decision 77).
 */
export async function readReceivedUpserts(db: Db): Promise<ReceivedUpsertsRead> {
  const rows = (await db.knex.raw(
    `select r.seq, r.entity, r.external_id, coalesce(r.payload, o.envelope -> 'payload' -> r.entity) as payload,
            r.request_id, r.received_at, r.event_id, r.payload is null and o.id is null as orphan
     from :received: r left join :outbox: o on o.id = r.event_id
     order by r.seq`,
    { received: `${db.schema}.received_upserts`, outbox: `${db.schema}.outbox` },
  )) as { rows: Array<ReceivedUpsert & { orphan: boolean }> };
  const read: ReceivedUpsertsRead = { upserts: [], orphans: [] };
  for (const { orphan, payload, ...row } of rows.rows) {
    if (orphan) read.orphans.push(row);
    else read.upserts.push({ ...row, payload: typeof payload === 'string' ? (JSON.parse(payload) as unknown) : payload });
  }
  return read;
}

/**
 * What the retention pruner may delete from received_upserts: batches older than `retentionMs` whose
 * events were all published (a batch and its outbox rows are written in one transaction). The outbox rows
 * the received rows refer to (their entities) are kept as long as those rows, whatever the outbox's own
 * retention (decision 73).
 */
export const receivedUpsertsRetention = (retentionMs: number): RetainedTable => ({
  table: 'received_upserts',
  key: ['seq'],
  writtenAt: 'received_at',
  retentionMs,
  publishedThroughOutbox: true,
  refersToOutbox: 'event_id',
});
