import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseStoreConfig } from '@commerce/shared-config';
import { migrate, type Db } from '@commerce/shared-db';
import { createMemoryBus } from '@commerce/shared-bus';
import { createLogger } from '@commerce/shared-logging';
import { paymentMigrations } from './payment.migrations';
import { buildPaymentService } from './payment.service';

const store = parseStoreConfig(JSON.parse(readFileSync('infra/config/demo-store.json', 'utf8')));
const settings = { publicUrl: 'http://pay.example', hmacKey: 'ab'.repeat(32), merchantAccount: 'TestMerchant' };
const logger = createLogger('payment-test', 'silent');

/** The migrations before `payment_002_one_live_attempt_per_selection`: the schema the old double charges were made in. */
const beforeOneLive = paymentMigrations.slice(
  0,
  paymentMigrations.findIndex((m) => m.name === 'payment_002_one_live_attempt_per_selection'),
);

/** The payment schema's migrations over data the code before decision 131 left: on PGlite (unit) and Postgres (int). */
export function paymentMigrationsContract(name: string, freshDb: () => Promise<Db>) {
  describe(`payment migrations on ${name}`, () => {
    let db: Db;
    beforeAll(async () => {
      db = await freshDb();
      await migrate(db, beforeOneLive);
    }, 60_000);

    /** Minutes into the last hour: younger than the sweep's expiry. */
    const at = (minute: number) => new Date(Date.now() - (60 - minute) * 60_000).toISOString();
    const attempt = (selectionId: string, status: string, minute: number) => ({
      id: randomUUID(),
      payment_method: 'test-card',
      provider: 'test',
      status,
      selection_id: selectionId,
      amount_minor: 12_950,
      currency: 'SEK',
      country: 'SE',
      provider_reference: `TR-${randomUUID()}`,
      return_url: 'https://shop.example/thanks',
      failed_url: 'https://shop.example/failed',
      address: JSON.stringify({ country: 'SE' }),
      order_draft: JSON.stringify({}),
      provider_data: JSON.stringify({}),
      created_at: at(minute),
      updated_at: at(minute),
    });
    const statusOf = async (id: string) =>
      (await db.table('attempts').where({ id }).first()) as {
        status: string;
        replaced: boolean;
        provider_void_due: boolean;
        provider_data: unknown;
      };

    it('one live attempt per selection over a selection charged twice: keeps its first authorization, and the sweep voids the others at the provider', async () => {
      const charged = randomUUID();
      const first = attempt(charged, 'authorized', 1);
      const second = attempt(charged, 'authorized', 2);
      const third = attempt(charged, 'authorized', 3);
      const pending = attempt(charged, 'started', 4);
      const other = randomUUID();
      const older = attempt(other, 'started', 1);
      const newer = attempt(other, 'started', 2);
      await db.table('attempts').insert([first, second, third, pending, older, newer]);

      // The migration used to stop here (two authorized attempts of one selection: the unique index could not be made).
      await migrate(db, paymentMigrations);

      expect(await statusOf(first.id)).toMatchObject({ status: 'authorized', replaced: false, provider_void_due: false });
      for (const later of [second, third])
        expect(await statusOf(later.id)).toMatchObject({ status: 'cancelled', replaced: true, provider_void_due: true });
      expect(await statusOf(pending.id)).toMatchObject({ status: 'cancelled', replaced: true, provider_void_due: false });
      expect(await statusOf(older.id)).toMatchObject({ status: 'cancelled', replaced: true });
      expect(await statusOf(newer.id)).toMatchObject({ status: 'started', replaced: false });

      // The payment service's sweep voids the second and third authorizations at the provider, once.
      const payment = await buildPaymentService({ db, bus: createMemoryBus(), logger, store, testProviders: settings });
      expect(await payment.sweep()).toEqual({ expired: 0, voided: 2, failures: [] });
      for (const later of [second, third]) {
        const row = await statusOf(later.id);
        expect(row).toMatchObject({ status: 'voided', replaced: true, provider_void_due: false });
        const data = typeof row.provider_data === 'string' ? JSON.parse(row.provider_data) : row.provider_data;
        expect(data).toMatchObject({ voided: { voidReference: expect.stringMatching(/^TV/) } });
      }
      const voidedEvents = (await db.table('outbox').whereIn('key', [second.id, third.id])).filter((r: { envelope: unknown }) => {
        const envelope = typeof r.envelope === 'string' ? JSON.parse(r.envelope) : r.envelope;
        return (envelope as { type: string }).type === 'PaymentVoided';
      });
      expect(voidedEvents).toHaveLength(2);
      expect(await payment.sweep()).toEqual({ expired: 0, voided: 0, failures: [] });
      expect((await payment.client.liveAttemptOf(charged))?.attemptId).toBe(first.id);
    });

    const indexesOfAttempts = async () =>
      (
        (
          await db.knex.raw(`select indexname from pg_indexes where schemaname = ? and tablename = 'attempts' order by indexname`, [
            db.schema,
          ])
        ).rows as Array<{ indexname: string }>
      ).map((r) => r.indexname);
    /** The indexes a plan of `sql` reads, sequential scans off (a table this small would be read whole). */
    const indexesRead = (sql: string, bindings: unknown[]) =>
      db.transaction(async (trx) => {
        await trx.raw('set local enable_seqscan = off');
        const result = await trx.raw(`explain (format json) ${sql}`, bindings as never[]);
        const plan = (result as { rows: Array<{ 'QUERY PLAN': unknown }> }).rows[0]!['QUERY PLAN'];
        return [...JSON.stringify(typeof plan === 'string' ? JSON.parse(plan) : plan).matchAll(/"Index Name":"([^"]+)"/g)]
          .map((m) => m[1]!)
          .sort();
      });

    it('payment_004 drops the (selection_id, status) index: the reads of a selection take its live attempt from the one-live index', async () => {
      await migrate(db, paymentMigrations);
      expect(await indexesOfAttempts()).not.toContain('attempts_selection_id_status_index');
      const live = `select * from ??.attempts where selection_id = ? and status in ('started', 'authorized') limit 1`;
      expect(await indexesRead(live, [db.schema, randomUUID()])).toEqual(['attempts_one_live_per_selection']);
      const startRead = `select * from ??.attempts where id = ? or (selection_id = ? and status in ('started', 'authorized')) for update`;
      expect(await indexesRead(startRead, [db.schema, randomUUID(), randomUUID()])).toEqual([
        'attempts_one_live_per_selection',
        'attempts_pkey',
      ]);

      const migration = paymentMigrations.find((m) => m.name === 'payment_004_drop_selection_status_index')!;
      await migration.down!(db.knex, db.schema);
      expect(await indexesOfAttempts()).toContain('attempts_selection_id_status_index');
      await migration.up(db.knex, db.schema);
      expect(await indexesOfAttempts()).not.toContain('attempts_selection_id_status_index');
    });
  });
}
