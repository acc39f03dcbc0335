import { randomUUID } from 'node:crypto';
import { Registry } from 'prom-client';
import { migrate, type Db, type DbEngine, type Knex } from '@commerce/shared-db';
import { uniqueName } from '@commerce/shared-testing';
import { envelope } from './event-bus.contract';
import { consumeOnce, outboxMigrations } from './outbox';
import { startRetentionPruner, type RetentionPruner, type RetentionPrunerOptions } from './retention-pruner';

export interface RetentionHarness {
  openDb(): Promise<DbEngine>;
}

const DAY_MS = 24 * 3600 * 1000;

/**
 * The retention pruner: run on PGlite (`retention-pruner.spec.ts`) and on Postgres
 * (`retention-pruner.int-spec.ts`). Ages are set in database time, as the pruner reads them.
 */
export function retentionPrunerContract(harness: RetentionHarness): void {
  let engine: DbEngine;
  let db: Db;
  let registry: Registry;
  const pruners: RetentionPruner[] = [];

  beforeAll(async () => {
    engine = await harness.openDb();
  }, 60_000);
  afterAll(async () => {
    await engine?.close();
  }, 30_000);
  beforeEach(async () => {
    db = engine.forSchema(uniqueName('retention'));
    registry = new Registry();
    await migrate(db, [
      ...outboxMigrations,
      {
        // A table written in the transaction of outbox events, as backoffice's received_upserts.
        name: 'journal',
        up: (knex, schema) =>
          knex.schema.withSchema(schema).createTable('journal', (t) => {
            t.bigIncrements('seq');
            t.text('batch').notNullable();
            t.timestamp('written_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
            // The outbox row holding what the row stands for, as received_upserts' event_id (refersToOutbox).
            t.uuid('event_id').nullable().index();
          }),
      },
    ]);
  });
  afterEach(async () => {
    await Promise.all(pruners.splice(0).map((p) => p.stop()));
  }, 30_000);

  /** A pruner that runs only when asked (its schedule is an hour away). */
  const pruner = (options: Partial<RetentionPrunerOptions> = {}) => {
    const p = startRetentionPruner(db, {
      outboxRetentionMs: 7 * DAY_MS,
      processedEventsRetentionMs: 14 * DAY_MS,
      intervalMs: 3600_000,
      batchSize: 1000,
      registry,
      ...options,
    });
    pruners.push(p);
    return p;
  };

  const ago = (days: number): Knex.Raw => db.knex.raw('now() - make_interval(secs => ?)', [days * 86400]);

  async function outboxRow(batch: string, created: number, sent: number | null): Promise<void> {
    const e = envelope('retention_t', batch);
    await db.table('outbox').insert({
      id: randomUUID(),
      topic: e.topic,
      key: batch,
      envelope: JSON.stringify(e),
      created_at: ago(created),
      sent_at: sent === null ? null : ago(sent),
    });
  }

  const outboxKeys = async () => (await db.table('outbox').select('key').orderBy('seq')).map((r: { key: string }) => r.key);
  const metric = async (name: string) => (await registry.getSingleMetric(name)!.get()).values;

  it('deletes sent outbox rows older than the retention, and keeps younger ones and every unsent row however old', async () => {
    await outboxRow('sent-8-days-ago', 8, 8);
    await outboxRow('created-30-days-ago-sent-6-days-ago', 30, 6);
    await outboxRow('sent-an-hour-ago', 0.05, 0.04);
    await outboxRow('unsent-for-30-days', 30, null);
    await outboxRow('unsent-new', 0, null);

    const pruned = await pruner().pruneNow();

    expect(pruned['outbox']).toBe(1);
    expect(await outboxKeys()).toEqual(['created-30-days-ago-sent-6-days-ago', 'sent-an-hour-ago', 'unsent-for-30-days', 'unsent-new']);
  });

  it('deletes dedupe records older than their retention and keeps younger ones, so a redelivery of those is still skipped', async () => {
    await db.table('processed_events').insert([
      { consumer: 'catalog', event_id: 'old', processed_at: ago(15) },
      { consumer: 'catalog', event_id: 'young', processed_at: ago(13) },
      { consumer: 'cart', event_id: 'new', processed_at: ago(0) },
    ]);

    const pruned = await pruner().pruneNow();

    expect(pruned['processed_events']).toBe(1);
    expect(await db.table('processed_events').select('consumer', 'event_id').orderBy('event_id')).toEqual([
      { consumer: 'cart', event_id: 'new' },
      { consumer: 'catalog', event_id: 'young' },
    ]);
    const redelivered = (id: string) => consumeOnce(db, 'catalog', { ...envelope('retention_t', 'k'), id }, async () => undefined);
    expect(await redelivered('young')).toBe(false);
  });

  it('deletes in batches of at most batchSize rows, until fewer than a batch is left', async () => {
    for (let i = 0; i < 25; i++) await outboxRow(`old-${i}`, 9, 8);
    await outboxRow('young', 1, 1);
    const deletes: string[] = [];
    const onQuery = (q: { sql: string }) => {
      if (/^delete from "?retention/i.test(q.sql) && q.sql.includes('"outbox"')) deletes.push(q.sql);
    };
    db.knex.on('query', onQuery);

    const pruned = await pruner({ batchSize: 10 })
      .pruneNow()
      .finally(() => db.knex.off('query', onQuery));

    expect(pruned['outbox']).toBe(25);
    expect(deletes).toHaveLength(3); // 10, 10, then 5 < 10: done
    expect(await outboxKeys()).toEqual(['young']);
  });

  it('deletes in batches on composite keys too (dedupe records)', async () => {
    const rows = Array.from({ length: 23 }, (_, i) => ({ consumer: `c${i % 3}`, event_id: `e${i}`, processed_at: ago(20) }));
    await db.table('processed_events').insert([...rows, { consumer: 'c0', event_id: 'young', processed_at: ago(1) }]);

    expect((await pruner({ batchSize: 5 }).pruneNow())['processed_events']).toBe(23);
    expect(await db.table('processed_events').select('event_id')).toEqual([{ event_id: 'young' }]);
  });

  describe('a table written with outbox events (publishedThroughOutbox)', () => {
    const journal = { table: 'journal', key: ['seq'], writtenAt: 'written_at', retentionMs: 30 * DAY_MS, publishedThroughOutbox: true };

    async function batch(name: string, days: number, sent: boolean): Promise<void> {
      // One transaction stamps the rows and their events alike, as received_upserts and enqueue do.
      await db.transaction(async (trx) => {
        const [{ at }] = (await trx.raw('select now() - make_interval(secs => ?) as at', [days * 86400])).rows;
        await db.table('journal', trx).insert([
          { batch: name, written_at: at },
          { batch: name, written_at: at },
        ]);
        const e = envelope('retention_t', name);
        await db
          .table('outbox', trx)
          .insert({ id: randomUUID(), topic: e.topic, key: name, envelope: JSON.stringify(e), created_at: at, sent_at: sent ? at : null });
      });
    }
    const journalBatches = async () => [
      ...new Set((await db.table('journal').select('batch').orderBy('seq')).map((r: { batch: string }) => r.batch)),
    ];

    it('keeps rows whose events are not all published, and every row written after them, however old', async () => {
      await batch('published-40-days-ago', 40, true);
      await batch('unpublished-35-days-ago', 35, false);
      await batch('published-32-days-ago', 32, true);
      await batch('published-yesterday', 1, true);
      const p = pruner({ tables: [journal] });

      expect((await p.pruneNow())['journal']).toBe(2);
      expect(await journalBatches()).toEqual(['unpublished-35-days-ago', 'published-32-days-ago', 'published-yesterday']);

      await db.table('outbox').whereNull('sent_at').update({ sent_at: db.knex.fn.now() });
      expect((await p.pruneNow())['journal']).toBe(4);
      expect(await journalBatches()).toEqual(['published-yesterday']);
    });

    it('keeps a sent outbox row past its own retention while a row refers to it (refersToOutbox), then deletes it', async () => {
      const id = randomUUID();
      const e = envelope('retention_t', 'referred');
      await db.table('outbox').insert({ id, topic: e.topic, key: 'referred', envelope: JSON.stringify(e), created_at: ago(20), sent_at: ago(20) });
      await db.table('journal').insert({ batch: 'refers', written_at: ago(20), event_id: id });
      await outboxRow('unreferred-sent-20-days-ago', 20, 20);
      const referring = { ...journal, refersToOutbox: 'event_id' };

      expect(await pruner({ tables: [referring] }).pruneNow()).toMatchObject({ outbox: 1, journal: 0 });
      expect(await outboxKeys()).toEqual(['referred']);

      // The journal's retention passes: its row goes, then (the outbox is pruned first) its outbox row at the next run.
      const shorter = pruner({ tables: [{ ...referring, retentionMs: 10 * DAY_MS }] });
      expect(await shorter.pruneNow()).toMatchObject({ outbox: 0, journal: 1 });
      expect(await shorter.pruneNow()).toMatchObject({ outbox: 1, journal: 0 });
      expect(await outboxKeys()).toEqual([]);
    });

    it('without an unsent outbox row, applies the retention alone', async () => {
      await batch('published-40-days-ago', 40, true);
      await batch('published-29-days-ago', 29, true);

      expect((await pruner({ tables: [journal] }).pruneNow())['journal']).toBe(2);
      expect(await journalBatches()).toEqual(['published-29-days-ago']);
    });
  });

  it('reports the outbox backlog and the rows pruned, by table', async () => {
    await outboxRow('unsent-an-hour', 1 / 24, null);
    await outboxRow('unsent-new', 0, null);
    await outboxRow('sent-long-ago', 10, 9);
    await db.table('processed_events').insert({ consumer: 'c', event_id: 'e', processed_at: ago(30) });

    await pruner().pruneNow();

    expect(await metric('outbox_pending_events')).toEqual([expect.objectContaining({ labels: { schema: db.schema }, value: 2 })]);
    const [age] = await metric('outbox_oldest_pending_age_seconds');
    expect(age?.labels).toEqual({ schema: db.schema });
    expect(age?.value).toBeGreaterThanOrEqual(3600);
    expect(age?.value).toBeLessThan(3700);
    const pruned = await metric('retention_pruned_rows_total');
    expect(pruned.map((v) => [v.labels['table'], v.value]).sort()).toEqual([
      ['outbox', 1],
      ['processed_events', 1],
    ]);
  });

  it('reports an empty backlog as zero rows and zero age', async () => {
    pruner();
    expect(await metric('outbox_pending_events')).toEqual([expect.objectContaining({ value: 0 })]);
    expect(await metric('outbox_oldest_pending_age_seconds')).toEqual([expect.objectContaining({ value: 0 })]);
  });

  it('prunes on its schedule, and no more once stopped', async () => {
    const p = pruner({ intervalMs: 20, firstRunDelayMs: 0 });
    await outboxRow('old', 9, 8);

    for (const deadline = Date.now() + 5000; (await outboxKeys()).length > 0 && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(await outboxKeys()).toEqual([]);
    await p.stop();
    await outboxRow('old-after-stop', 9, 8);
    await new Promise((resolve) => setTimeout(resolve, 100));

    expect(await outboxKeys()).toEqual(['old-after-stop']);
  });
}
