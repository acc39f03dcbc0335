import { enqueue, outboxBatch, outboxInputSql, outboxInsertSql, outboxWritten } from '@commerce/shared-bus';
import { isUniqueViolation, retryContended, type Db, type Knex } from '@commerce/shared-db';
import type { AttemptRepository, StoredAttempt } from '@commerce/payment-core';
import type { AttemptStatus, PaymentAddress } from '@commerce/payment-contracts';

interface AttemptRow {
  id: string;
  payment_method: string;
  provider: string;
  status: AttemptStatus;
  selection_id: string;
  amount_minor: string | number;
  currency: string;
  country: string;
  provider_reference: string;
  return_url: string;
  failed_url: string;
  address: PaymentAddress | string;
  customer_address: PaymentAddress | string | null;
  order_draft: unknown;
  provider_data: Record<string, unknown> | string;
  created_at: Date | string;
  replaced: boolean;
}

/** The statuses of a live attempt: at most one per selection (the `attempts_one_live_per_selection` index). */
const LIVE: AttemptStatus[] = ['started', 'authorized'];
/** Another attempt id of the same selection won the race for the unique live slot (or the same id: a repeated start). */

const json = <T>(v: T | string): T => (typeof v === 'string' ? (JSON.parse(v) as T) : v);

/** The columns an insert writes, in the order of `insertSql`'s values. */
const INSERTED = [
  'id',
  'payment_method',
  'provider',
  'status',
  'selection_id',
  'amount_minor',
  'currency',
  'country',
  'provider_reference',
  'return_url',
  'failed_url',
  'address',
  'customer_address',
  'order_draft',
  'provider_data',
  'created_at',
] as const;
const JSONB = new Set<string>(['address', 'customer_address', 'order_draft', 'provider_data']);

const toAttempt = (r: AttemptRow): StoredAttempt => ({
  attemptId: r.id,
  paymentMethod: r.payment_method,
  provider: r.provider,
  status: r.status,
  selectionId: r.selection_id,
  amountMinor: Number(r.amount_minor),
  currency: r.currency,
  country: r.country,
  providerReference: r.provider_reference,
  address: json(r.address),
  customerAddress: r.customer_address === null ? null : json(r.customer_address),
  orderDraft: json(r.order_draft as string),
  createdAt: new Date(r.created_at).toISOString(),
  returnUrl: r.return_url,
  failedUrl: r.failed_url,
  providerData: json(r.provider_data),
  replaced: Boolean(r.replaced),
});

/** The attempts in the payment service's schema; state changes and their events commit together. */
export function createAttemptRepository(db: Db): AttemptRepository {
  /** The provider's data with `data`'s keys set (a shallow merge, in the statement that writes it). */
  const mergedJson = (data: Record<string, unknown>) => db.knex.raw('provider_data || ?::jsonb', [JSON.stringify(data)]);
  const attempts = db.qualified('attempts');
  const find = async (id: string, trx?: Knex.Transaction, lock = false) => {
    const q = db.table('attempts', trx).where({ id }).first();
    const row = (await (lock ? q.forUpdate() : q)) as AttemptRow | undefined;
    return row ? toAttempt(row) : null;
  };
  // The checkout's statements as fixed texts on `Db.query` (prepared on Postgres, no query builder: issue 28).
  const findSql = `select * from ${attempts} where id = ? limit 1`;
  const byReferenceSql = `select * from ${attempts} where provider = ? and provider_reference = ? limit 1`;
  // A new attempt of a selection without a live one: inserted. Any other (the id taken: a repeated start; the selection's
  // live slot taken: the unique index `attempts_one_live_per_selection`) inserts nothing, and the transaction below runs.
  const insertSql = `insert into ${attempts} (${INSERTED.join(', ')})
    values (${INSERTED.map((c) => (JSONB.has(c) ? 'cast(? as jsonb)' : c === 'created_at' ? 'cast(? as timestamptz)' : '?')).join(', ')})
    on conflict do nothing returning id`;
  const findOne = async (sql: string, bindings: unknown[]) => {
    const [row] = await db.query<AttemptRow>(sql, bindings);
    return row ? toAttempt(row) : null;
  };
  return {
    async insert(a, cancelled) {
      const row = {
        id: a.attemptId,
        payment_method: a.paymentMethod,
        provider: a.provider,
        status: a.status,
        selection_id: a.selectionId,
        amount_minor: a.amountMinor,
        currency: a.currency,
        country: a.country,
        provider_reference: a.providerReference,
        return_url: a.returnUrl,
        failed_url: a.failedUrl,
        address: JSON.stringify(a.address),
        customer_address: a.customerAddress ? JSON.stringify(a.customerAddress) : null,
        order_draft: JSON.stringify(a.orderDraft ?? null),
        provider_data: JSON.stringify(a.providerData),
        created_at: a.createdAt,
      };
      // The row is what was given: nothing is read back (the order's draft and the addresses are most of its bytes).
      const fresh = await db.query(
        insertSql,
        INSERTED.map((c) => row[c]),
      );
      if (fresh.length > 0)
        return { attempt: { ...a, orderDraft: a.orderDraft ?? null, replaced: false }, created: true, replaced: [], authorized: null };
      // Starts of one selection queue on a lock of the selection (held to the end of the transaction), so each
      // finds the one before it; should two still meet, the unique index refuses one, which runs again.
      for (let run = 1; ; run++) {
        try {
          return await retryContended(() =>
            db.transaction(async (trx) => {
              await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`payment.attempts:${a.selectionId}`]);
              // The attempt of this id (a repeated start) and the selection's live ones, in one read under the lock.
              const rows = (await db
                .table('attempts', trx)
                .where({ id: a.attemptId })
                .orWhere((q) => q.where({ selection_id: a.selectionId }).whereIn('status', LIVE))
                .orderBy('id')
                .forUpdate()) as AttemptRow[];
              const same = rows.find((r) => r.id === a.attemptId);
              if (same) return { attempt: toAttempt(same), created: false, replaced: [], authorized: null };
              const live = rows.map(toAttempt);
              const authorized = live.find((l) => l.status === 'authorized');
              if (authorized) return { attempt: authorized, created: false, replaced: [], authorized };
              const replaced: StoredAttempt[] = [];
              for (const older of live) {
                await db
                  .table('attempts', trx)
                  .where({ id: older.attemptId })
                  .update({ status: 'cancelled', replaced: true, updated_at: db.knex.fn.now() });
                const moved = { ...older, status: 'cancelled' as const, replaced: true };
                replaced.push(moved);
                await enqueue(db, trx, cancelled(moved));
              }
              const [inserted] = (await db.table('attempts', trx).insert(row).returning('*')) as AttemptRow[];
              return { attempt: toAttempt(inserted!), created: true, replaced, authorized: null };
            }),
          );
        } catch (error) {
          if (run >= 5 || !isUniqueViolation(error)) throw error;
        }
      }
    },
    async recordStart(id, start, events) {
      // A newer attempt may have replaced this one while its provider answered: then it stays cancelled (the status
      // moves only from started) and its events are not written.
      const fields = {
        provider_reference: start.providerReference,
        provider_data: mergedJson(start.providerData),
        customer_address: start.customerAddress ? JSON.stringify(start.customerAddress) : null,
        updated_at: db.knex.fn.now(),
      };
      // Nothing to publish (a redirect's start): one statement, no transaction.
      if (events.length === 0) {
        const [updated] = (await db
          .table('attempts')
          .where({ id })
          .update({ ...fields, status: db.knex.raw(`case when status = 'started' then ? else status end`, [start.status]) })
          .returning('*')) as AttemptRow[];
        return toAttempt(updated!);
      }
      return db.transaction(async (trx) => {
        const current = await find(id, trx, true);
        const replaced = current?.status !== 'started';
        const [updated] = (await db
          .table('attempts', trx)
          .where({ id })
          .update({ ...fields, ...(replaced ? {} : { status: start.status }) })
          .returning('*')) as AttemptRow[];
        if (!replaced) await enqueue(db, trx, events);
        return toAttempt(updated!);
      });
    },
    find: (id) => findOne(findSql, [id]),
    findByReference: (provider, reference) => findOne(byReferenceSql, [provider, reference]),
    async transition(id, from, to, patch, events) {
      // One statement, atomic without a transaction: the update takes the row's lock and checks the status under
      // it (the first verdict decides), and the change's events go to the outbox only if a row moved.
      const sets = ['status = :to'];
      if (patch.customerAddress !== undefined) sets.push('customer_address = cast(:customerAddress as jsonb)');
      if (patch.providerData) sets.push('provider_data = provider_data || cast(:providerData as jsonb)');
      // Voided at the provider: nothing left due there. Voided from cancelled (an authorization arriving after the attempt
      // was given up: replaced, expired, cancelled): recorded `replaced`, never kept, so the checkout saga releases its
      // hold; voided from authorized (its stock gone) stays as it was.
      if (to === 'voided') sets.push('provider_void_due = false', `replaced = replaced or status = 'cancelled'`);
      sets.push('updated_at = now()');
      const outbox =
        events.length === 0
          ? ''
          : `, input as (${outboxInputSql}), written as (${outboxInsertSql(
              '(select * from input where exists (select 1 from moved)) as due',
              db.qualified('outbox'),
            )})`;
      const [updated] = await db.query<AttemptRow>(
        `with moved as (update ${attempts} set ${sets.join(', ')} where id = :id and status = any(cast(:from as text[])) returning *)${outbox}
          select * from moved`,
        {
          to,
          customerAddress: patch.customerAddress ? JSON.stringify(patch.customerAddress) : null,
          providerData: JSON.stringify(patch.providerData ?? {}),
          id,
          from,
          ...(events.length === 0 ? {} : outboxBatch(events)),
        },
      );
      if (!updated) return null;
      if (events.length > 0) outboxWritten(db);
      return toAttempt(updated);
    },
    async mergeProviderData(id, data) {
      const [updated] = (await db
        .table('attempts')
        .where({ id })
        .update({ provider_data: mergedJson(data), updated_at: db.knex.fn.now() })
        .returning('*')) as AttemptRow[];
      return updated ? toAttempt(updated) : null;
    },
    async liveOfSelection(selectionId) {
      const row = (await db.table('attempts').where({ selection_id: selectionId }).whereIn('status', LIVE).first()) as
        AttemptRow | undefined;
      return row ? toAttempt(row) : null;
    },
    async expireStarted(before, limit, cancelled) {
      return retryContended(() =>
        db.transaction(async (trx) => {
          const rows = (await db
            .table('attempts', trx)
            .where({ status: 'started' })
            .andWhere('created_at', '<', before)
            .orderBy('created_at')
            .limit(limit)
            .forUpdate()
            .skipLocked()) as AttemptRow[];
          if (rows.length === 0) return [];
          await db
            .table('attempts', trx)
            .whereIn(
              'id',
              rows.map((r) => r.id),
            )
            .update({ status: 'cancelled', replaced: true, updated_at: db.knex.fn.now() });
          const expired = rows.map((r) => ({ ...toAttempt(r), status: 'cancelled' as const, replaced: true }));
          await enqueue(db, trx, expired.flatMap(cancelled));
          return expired;
        }),
      );
    },
    async voidsDue(limit) {
      const rows = (await db.table('attempts').where({ provider_void_due: true }).orderBy('created_at').limit(limit)) as AttemptRow[];
      return rows.map(toAttempt);
    },
  };
}
