import type { ChangeEvent, ChangeFeed, NewChangeEvent } from '@commerce/backoffice-core';
import type { ChangeEventMission, ChangeEventType } from '@commerce/erp-contracts';
import type { Db, Knex } from '@commerce/shared-db';

interface EventRow {
  id: string | number;
  type: string;
  entry: string;
  mission: string;
  market: string | null;
  data: Record<string, unknown> | string;
  occurred_at: Date | string;
}

const toEvent = (row: EventRow): ChangeEvent => ({
  id: String(row.id),
  type: row.type as ChangeEventType,
  entry: row.entry,
  mission: row.mission as ChangeEventMission,
  date: (row.occurred_at instanceof Date ? row.occurred_at : new Date(row.occurred_at)).toISOString().replace(/\.\d{3}Z$/, '+00:00'),
  ...(row.market ? { market: row.market } : {}),
  data: typeof row.data === 'string' ? (JSON.parse(row.data) as Record<string, unknown>) : row.data,
});

/** A change event with the owner's event it came from (a redelivery of that event is known by it). */
export type SourcedChangeEvent = NewChangeEvent & { sourceEventId?: string };

export interface ChangeEventStore extends ChangeFeed {
  /**
   * Appends events, in their order, inside the caller's transaction (the consumer's dedupe records commit with
   * them): one statement, whatever their number and sources.
   */
  append(trx: Knex.Transaction, events: readonly SourcedChangeEvent[]): Promise<void>;
  /**
   * A consumer's whole run in one statement (its own transaction): records the owner events `eventIds` as consumed
   * by `consumer` and appends, in their order, the change events of those it had not consumed before (a
   * redelivered event's are left out). Resolves with the number of change events appended.
   */
  recordRun(consumer: string, eventIds: readonly string[], events: readonly SourcedChangeEvent[]): Promise<number>;
  /** Whether `requestId` is a SOAP request whose batch this service stored (inside `trx` when given). */
  isSoapRequest(trx: Knex.Transaction | undefined, requestId: string): Promise<boolean>;
}

/** The dedupe records of a run (`processed_events`, shared-bus's table in this schema): those new returned. */
const CONSUMED_SQL = `insert into :processed: (consumer, event_id)
  select :consumer, e from unnest(cast(:ids as text[])) as e
  on conflict (consumer, event_id) do nothing
  returning event_id`;

/** The feed's new rows from a JSON array (`n` their order), the ids given in that order. */
const APPEND_SQL = (turn: boolean, consumed = false) => `${consumed ? `with consumed as (${CONSUMED_SQL}) ` : ''}
  insert into :table: (type, entry, mission, market, data, occurred_at, source_event_id)
  select v.type, v.entry, v.mission, v.market, v.data, v.occurred_at, v.source_event_id
  from json_to_recordset(cast(:rows as json))
    as v(n integer, type text, entry text, mission text, market text, data jsonb, occurred_at timestamptz, source_event_id text)
  ${consumed ? 'join consumed on consumed.event_id = v.source_event_id' : ''}
  ${turn ? 'cross join (select pg_advisory_xact_lock(hashtext(:lock))) as turn' : ''}
  order by v.n
  returning id`;

/** The change-event feed on knex (Postgres or PGlite). */
export function createChangeEventStore(db: Db): ChangeEventStore {
  const lockKey = `${db.schema}.change_events`;
  // Ids must become visible in increasing order, or a user's done_through could pass an id still being
  // committed and that event would never be listed: appends take turns on an advisory lock, taken in the
  // append's own statement (the sort consumes the lock's row before the first id is drawn). PGlite has one
  // connection, so its transactions already take turns.
  const appendSql = APPEND_SQL(db.engine === 'postgres');
  const runSql = APPEND_SQL(db.engine === 'postgres', true);
  const rowsOf = (events: readonly SourcedChangeEvent[]) =>
    JSON.stringify(
      events.map((e, n) => ({
        n,
        type: e.type,
        entry: e.entry,
        mission: e.mission,
        market: e.market ?? null,
        data: e.data,
        occurred_at: e.date,
        source_event_id: e.sourceEventId ?? null,
      })),
    );
  return {
    async recordRun(consumer, eventIds, events) {
      const ids = [...new Set(eventIds)];
      const bindings = { processed: `${db.schema}.processed_events`, consumer, ids };
      // Nothing to append (events that map to none): the dedupe records alone.
      if (events.length === 0) {
        await db.knex.raw(CONSUMED_SQL, bindings);
        return 0;
      }
      const result = (await db.knex.raw(runSql, {
        ...bindings,
        table: `${db.schema}.change_events`,
        rows: rowsOf(events),
        lock: lockKey,
      })) as { rows: unknown[] };
      return result.rows.length;
    },

    async append(trx, events) {
      if (events.length === 0) return;
      await trx.raw(appendSql, { table: `${db.schema}.change_events`, rows: rowsOf(events), lock: lockKey });
    },

    async isSoapRequest(trx, requestId) {
      const row = await db.table('received_upserts', trx).select('seq').where({ request_id: requestId }).first();
      return row !== undefined;
    },

    async list(username, query) {
      const cursor = (await db.table('event_cursors').select('done_through').where({ username }).first()) as
        { done_through: string | number } | undefined;
      const floor = cursor ? String(cursor.done_through) : '0';
      const q = db
        .table('change_events as e')
        .select('e.id', 'e.type', 'e.entry', 'e.mission', 'e.market', 'e.data', 'e.occurred_at')
        .where('e.id', '>', floor)
        .whereNotExists(
          db.knex.select(db.knex.raw('1')).from(`${db.schema}.event_acks as a`).where('a.username', username).whereRaw('a.event_id = e.id'),
        )
        .orderBy('e.id')
        .limit(query.limit);
      if (query.type) q.where('e.type', query.type);
      if (query.markets) q.whereIn('e.market', [...query.markets]);
      return ((await q) as EventRow[]).map(toEvent);
    },

    async markDone(username, ids) {
      return db.transaction(async (trx) => {
        // One user's Done calls take turns on the user's cursor row.
        await db.table('event_cursors', trx).insert({ username, done_through: 0 }).onConflict('username').ignore();
        const cursor = (await db.table('event_cursors', trx).select('done_through').where({ username }).forUpdate().first()) as {
          done_through: string | number;
        };
        const known = new Set(
          (
            (await db
              .table('change_events', trx)
              .whereIn('id', [...ids])
              .pluck('id')) as Array<string | number>
          ).map(String),
        );
        // An event at or below the user's done_through was done by that user, even once pruned.
        const unknown = ids.filter((id) => !known.has(id) && BigInt(id) > BigInt(cursor.done_through));
        if (unknown.length > 0) return { unknown };

        const floor = BigInt(cursor.done_through);
        const above = ids.filter((id) => BigInt(id) > floor);
        if (above.length > 0)
          await db
            .table('event_acks', trx)
            .insert(above.map((id) => ({ username, event_id: id })))
            .onConflict(['username', 'event_id'])
            .ignore();

        // Move done_through up to just below the user's oldest event not done, and drop the acks below it.
        // The newest id first: every id up to it is committed (appends take turns), later ones are not seen.
        const max = (await db.table('change_events', trx).max({ id: 'id' }).first()) as { id: string | number | null } | undefined;
        const newest = max?.id == null ? floor : BigInt(max.id);
        const next = (await db
          .table('change_events as e', trx)
          .select('e.id')
          .where('e.id', '>', floor.toString())
          .andWhere('e.id', '<=', newest.toString())
          .whereNotExists(
            db.knex
              .select(db.knex.raw('1'))
              .from(`${db.schema}.event_acks as a`)
              .where('a.username', username)
              .whereRaw('a.event_id = e.id'),
          )
          .orderBy('e.id')
          .first()) as { id: string | number } | undefined;
        const through = next ? BigInt(next.id) - 1n : newest;
        if (through > floor) {
          await db.table('event_cursors', trx).where({ username }).update({ done_through: through.toString() });
          await db.table('event_acks', trx).where({ username }).andWhere('event_id', '<=', through.toString()).delete();
        }
        return { unknown: [] };
      });
    },
  };
}

/**
 * Deletes change events every configured SOAP user has marked done (at or below the lowest of their
 * done_through) and older than `retentionMs`, `batchSize` rows a statement. A configured user that never
 * marked anything done keeps everything. Resolves with the number of rows deleted.
 */
export async function pruneChangeEvents(
  db: Db,
  options: { usernames: readonly string[]; retentionMs: number; batchSize: number },
): Promise<number> {
  if (options.usernames.length === 0) return 0;
  const cursors = (await db
    .table('event_cursors')
    .whereIn('username', [...options.usernames])
    .select('done_through')) as {
    done_through: string | number;
  }[];
  if (cursors.length < new Set(options.usernames).size) return 0;
  const through = cursors.map((c) => BigInt(c.done_through)).reduce((a, b) => (a < b ? a : b));
  if (through <= 0n) return 0;
  const before = new Date(Date.now() - options.retentionMs).toISOString();
  let total = 0;
  for (;;) {
    // The rows themselves, not a driver's row count (PGlite's knex dialect does not give one).
    const rows = (await db
      .table('change_events')
      .whereIn(
        'id',
        db
          .table('change_events')
          .select('id')
          .where('id', '<=', through.toString())
          .andWhere('occurred_at', '<', before)
          .orderBy('id')
          .limit(options.batchSize),
      )
      .delete()
      .returning('id')) as unknown[];
    const deleted = rows.length;
    total += deleted;
    if (deleted < options.batchSize) return total;
  }
}
