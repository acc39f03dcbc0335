import { enqueue, type RetainedTable } from '@commerce/shared-bus';
import type { Db } from '@commerce/shared-db';
import type { UpsertStore } from '@commerce/backoffice-core';

// 5 parameters a row; 1000 rows stay far below Postgres's 65535 bind parameters.
const ROWS_PER_INSERT = 1000;

/** The UpsertStore on knex (Postgres or PGlite): the entities and their outbox rows in one transaction. */
export function createReceivedUpsertsStore(db: Db): UpsertStore {
  return {
    async saveBatch(entity, items, events, requestId) {
      await db.transaction(async (trx) => {
        for (let start = 0; start < items.length; start += ROWS_PER_INSERT) {
          const rows = items.slice(start, start + ROWS_PER_INSERT).map((item) => ({
            entity,
            external_id: item.externalId,
            payload: JSON.stringify(item.data),
            request_id: requestId ?? null,
          }));
          await db.table('received_upserts', trx).insert(rows);
        }
        await enqueue(db, trx, events);
      });
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
