import type { NewChangeEvent } from '@commerce/backoffice-core';
import { migrate, type Db, type DbEngine } from '@commerce/shared-db';
import { rowsRead as readRows, uniqueName } from '@commerce/shared-testing';
import { backofficeMigrations } from '../backoffice.migrations';
import { createChangeEventStore, pruneChangeEvents, type ChangeEventStore } from './change-events.store';

const ev = (type: NewChangeEvent['type'], entry: string, market?: string): NewChangeEvent => ({
  type,
  entry,
  mission: 'update',
  date: '2026-03-01T08:00:00+00:00',
  ...(market ? { market } : {}),
  data: { [type === 'stock' ? 'stock' : type]: { id: entry } },
});

/** The change-event feed's behaviour, run on PGlite (unit) and on Postgres (int) so the two cannot drift. */
export function changeEventStoreContract(engine: () => DbEngine): void {
  let db: Db;
  let store: ChangeEventStore;

  beforeEach(async () => {
    db = engine().forSchema(uniqueName('bo_feed'));
    await migrate(db, backofficeMigrations);
    store = createChangeEventStore(db);
  });

  const append = (...events: NewChangeEvent[]) => db.transaction((trx) => store.append(trx, events));
  const entries = async (user: string, query: Parameters<ChangeEventStore['list']>[1]) =>
    (await store.list(user, query)).map((e) => e.entry);

  it('lists events oldest first with increasing ids, the date with its offset, at most the limit', async () => {
    await append(ev('customer', 'c1'), ev('order', 'o1', 'EU'), ev('customer', 'c2'));

    const all = await store.list('erp', { limit: 2 });

    expect(all.map((e) => [e.type, e.entry, e.mission])).toEqual([
      ['customer', 'c1', 'update'],
      ['order', 'o1', 'update'],
    ]);
    expect(BigInt(all[1]!.id)).toBeGreaterThan(BigInt(all[0]!.id));
    expect(all[0]!.date).toBe('2026-03-01T08:00:00+00:00');
    expect(all[0]!.data).toEqual({ customer: { id: 'c1' } });
    expect(all[1]!.market).toBe('EU');
  });

  it('appends a run of events from several sources in one statement, in order; appends take turns until commit (issue 28)', async () => {
    const sent: string[] = [];
    const listen = (q: { sql: string }) => void sent.push(q.sql);
    await db.transaction(async (trx) => {
      db.knex.on('query', listen);
      try {
        await store.append(trx, [
          { ...ev('stock', 'S1'), sourceEventId: 'e1' },
          { ...ev('stock', 'S2'), sourceEventId: 'e1' },
          { ...ev('order', 'O1', 'M1'), sourceEventId: 'e2' },
        ]);
      } finally {
        db.knex.off('query', listen);
      }
    });
    expect(sent).toHaveLength(1);
    const rows = (await db.table('change_events').orderBy('id').select('entry', 'market', 'source_event_id', 'data')) as Array<{
      entry: string;
      market: string | null;
      source_event_id: string;
      data: unknown;
    }>;
    expect(rows.map((r) => [r.entry, r.market, r.source_event_id])).toEqual([
      ['S1', null, 'e1'],
      ['S2', null, 'e1'],
      ['O1', 'M1', 'e2'],
    ]);
    expect(rows[2]!.data).toEqual({ order: { id: 'O1' } });
    expect((await store.list('u-append', { limit: 10 })).map((e) => e.date)).toEqual(Array(3).fill('2026-03-01T08:00:00+00:00'));

    if (db.engine !== 'postgres') return; // PGlite: one connection, transactions take turns anyway.
    // A second append waits for the first's commit: its ids cannot become visible before the first's.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let firstAppended!: () => void;
    const appended = new Promise<void>((r) => (firstAppended = r));
    const first = db.transaction(async (trx) => {
      await store.append(trx, [ev('stock', 'T1')]);
      firstAppended();
      await held;
    });
    await appended;
    let secondDone = false;
    const second = db.transaction((trx) => store.append(trx, [ev('stock', 'T2')])).then(() => (secondDone = true));
    await new Promise((r) => setTimeout(r, 300));
    expect(secondDone).toBe(false);
    release();
    await Promise.all([first, second]);
    expect((await store.list('u-append', { limit: 10 })).map((e) => e.entry)).toEqual(['S1', 'S2', 'O1', 'T1', 'T2']);
  });

  it('records a consumer’s run in one statement: its dedupe records and the rows of the events it had not consumed (issue 28)', async () => {
    const sent: string[] = [];
    const listen = (q: { sql: string }) => void sent.push(q.sql);
    db.knex.on('query', listen);
    try {
      expect(await store.recordRun('feed', ['e1', 'e2', 'e1'], [{ ...ev('stock', 'S1'), sourceEventId: 'e1' }])).toBe(1);
    } finally {
      db.knex.off('query', listen);
    }
    expect(sent).toHaveLength(1);
    // e1 again (a redelivery, its row left out) with e3, new; e4 maps to no row but is recorded.
    expect(
      await store.recordRun(
        'feed',
        ['e1', 'e3'],
        [
          { ...ev('stock', 'S1'), sourceEventId: 'e1' },
          { ...ev('order', 'O3'), sourceEventId: 'e3' },
        ],
      ),
    ).toBe(1);
    expect(await store.recordRun('feed', ['e4'], [])).toBe(0);
    expect(await store.recordRun('feed', ['e4'], [{ ...ev('stock', 'S4'), sourceEventId: 'e4' }])).toBe(0);
    expect((await store.list('u-run', { limit: 10 })).map((e) => e.entry)).toEqual(['S1', 'O3']);
    const recorded = (await db.table('processed_events').where({ consumer: 'feed' }).orderBy('event_id').pluck('event_id')) as string[];
    expect(recorded).toEqual(['e1', 'e2', 'e3', 'e4']);
  });

  it('filters by type and by markets; events without a market are not in any market', async () => {
    await append(ev('customer', 'c1'), ev('order', 'o1', 'EU'), ev('order', 'o2', 'US'), ev('account', 'a1', 'EU'));

    expect(await entries('erp', { type: 'order', limit: 100 })).toEqual(['o1', 'o2']);
    expect(await entries('erp', { markets: ['EU'], limit: 100 })).toEqual(['o1', 'a1']);
    expect(await entries('erp', { type: 'order', markets: ['US', 'SE'], limit: 100 })).toEqual(['o2']);
  });

  it('done removes events from that user’s later lists only, is idempotent, and refuses unknown numbers whole', async () => {
    await append(ev('customer', 'c1'), ev('customer', 'c2'), ev('customer', 'c3'));
    const [e1, e2, e3] = await store.list('erp', { limit: 100 });

    await expect(store.markDone('erp', [e2!.id])).resolves.toEqual({ unknown: [] });
    await expect(store.markDone('erp', [e2!.id])).resolves.toEqual({ unknown: [] });
    expect(await entries('erp', { limit: 100 })).toEqual(['c1', 'c3']);
    expect(await entries('other', { limit: 100 })).toEqual(['c1', 'c2', 'c3']);

    const unknown = (BigInt(e3!.id) + 100n).toString();
    await expect(store.markDone('erp', [e1!.id, unknown])).resolves.toEqual({ unknown: [unknown] });
    expect(await entries('erp', { limit: 100 })).toEqual(['c1', 'c3']);

    await store.markDone('erp', [e1!.id, e3!.id]);
    expect(await entries('erp', { limit: 100 })).toEqual([]);
    // Done below the user's done_through is still fine, and later events still come.
    await expect(store.markDone('erp', [e1!.id])).resolves.toEqual({ unknown: [] });
    await append(ev('customer', 'c4'));
    expect(await entries('erp', { limit: 100 })).toEqual(['c4']);
  });

  it('keeps only the acknowledgements above the oldest event not done', async () => {
    await append(ev('customer', 'c1'), ev('order', 'o1'), ev('customer', 'c2'), ev('customer', 'c3'));
    const ids = (await store.list('erp', { limit: 100 })).map((e) => e.id);

    await store.markDone('erp', [ids[0]!, ids[2]!, ids[3]!]);
    expect(await db.table('event_cursors').where({ username: 'erp' }).pluck('done_through')).toEqual([expect.anything()]);
    expect(String((await db.table('event_cursors').where({ username: 'erp' }).first()).done_through)).toBe(ids[0]);
    expect((await db.table('event_acks').where({ username: 'erp' }).pluck('event_id')).map(String).sort()).toEqual(
      [ids[2]!, ids[3]!].sort(),
    );

    await store.markDone('erp', [ids[1]!]);
    expect(String((await db.table('event_cursors').where({ username: 'erp' }).first()).done_through)).toBe(ids[3]);
    expect(await db.table('event_acks').where({ username: 'erp' }).count({ n: '*' })).toEqual([{ n: 0 }]);
  });

  it('two clients of one user polling and marking done at once: every event is listed until done, none after', async () => {
    await append(...Array.from({ length: 30 }, (_, i) => ev('customer', `c${i}`)));
    const seenAfterDone: string[] = [];
    // When each event's Done had returned, on a counter of steps: a list that started before that may
    // rightly still show it (its read raced the commit); one that started after must not.
    const doneAt = new Map<string, number>();
    let step = 0;
    const worker = async () => {
      for (;;) {
        const startedAt = ++step;
        const page = await store.list('erp', { limit: 7 });
        if (page.length === 0) return;
        for (const e of page) if ((doneAt.get(e.id) ?? Infinity) < startedAt) seenAfterDone.push(e.id);
        await store.markDone(
          'erp',
          page.map((e) => e.id),
        );
        const returnedAt = ++step;
        page.forEach((e) => doneAt.set(e.id, Math.min(doneAt.get(e.id) ?? Infinity, returnedAt)));
      }
    };
    await Promise.all([worker(), worker()]);

    expect(seenAfterDone).toEqual([]);
    expect(doneAt.size).toBe(30);
    expect(await store.list('erp', { limit: 100 })).toEqual([]);
  });

  it('prunes only old events every configured user has done, and Done of a pruned one is still fine', async () => {
    await append(ev('customer', 'c1'), ev('customer', 'c2'), ev('customer', 'c3'));
    const ids = (await store.list('erp', { limit: 100 })).map((e) => e.id);
    const prune = (retentionMs = 0) => pruneChangeEvents(db, { usernames: ['erp', 'erp2'], retentionMs, batchSize: 1 });

    await store.markDone('erp', ids);
    expect(await prune()).toBe(0); // erp2 has not marked anything done yet
    await store.markDone('erp2', [ids[0]!]);
    expect(await prune(3650 * 86_400_000)).toBe(0); // not old enough (the events are dated 2026-03-01)
    expect(await prune()).toBe(1);

    expect((await store.list('erp2', { limit: 100 })).map((e) => e.entry)).toEqual(['c2', 'c3']);
    await expect(store.markDone('erp2', [ids[0]!])).resolves.toEqual({ unknown: [] });
    await expect(store.markDone('someone-new', [ids[0]!])).resolves.toEqual({ unknown: [ids[0]] });
  });

  /** The rows the database reads from change_events to answer `list` (what a page costs, without timing anything). */
  const rowsRead = (list: () => Promise<unknown>) => readRows(db, 'change_events', list);

  it('reads a page of events, not the backlog, with 100,000 events pending or 100,000 done', async () => {
    await append(...Array.from({ length: 150 }, (_, i) => ev(i % 2 ? 'order' : 'customer', `x${i}`)));
    const few = await rowsRead(() => store.list('erp', { type: 'order', limit: 100 }));

    await db.knex.raw(
      `insert into ??.change_events (type, entry, mission, data, occurred_at)
       select case when g % 2 = 0 then 'customer' else 'order' end, 'e' || g, 'update', '{}'::jsonb, now()
       from generate_series(1, 100000) g`,
      [db.schema],
    );
    await db.knex.raw(`analyze ??.change_events`, [db.schema]);
    const pending = await rowsRead(() => store.list('erp', { type: 'order', limit: 100 }));

    // The same user marks all of them done except the newest 150: the list starts at done_through.
    const newest = (await db.table('change_events').max({ id: 'id' }).first()) as { id: string | number };
    await db.table('event_cursors').insert({ username: 'erp', done_through: Number(newest.id) - 150 });
    const afterDone = await rowsRead(() => store.list('erp', { type: 'order', limit: 100 }));
    const page = await store.list('erp', { type: 'order', limit: 100 });

    // A page of 100 orders among events half orders reads about 200 rows: never the 100,000.
    expect(few).toBeGreaterThan(0);
    expect(few).toBeLessThanOrEqual(150);
    expect(pending).toBeLessThanOrEqual(400);
    expect(afterDone).toBeLessThanOrEqual(400);
    expect(page).toHaveLength(75);
  }, 60_000);

  it('reads a page of a market, not the events without one, whose rows its index leaves out', async () => {
    await append(...Array.from({ length: 150 }, (_, i) => ev('order', `o${i}`, i % 2 ? 'EU' : 'US')));
    await db.knex.raw(
      `insert into ??.change_events (type, entry, mission, data, occurred_at)
       select 'stock', 'p' || g, 'update', '{}'::jsonb, now() from generate_series(1, 100000) g`,
      [db.schema],
    );
    await db.knex.raw(`analyze ??.change_events`, [db.schema]);

    const read = await rowsRead(() => store.list('erp', { markets: ['EU'], limit: 50 }));
    const page = await store.list('erp', { markets: ['EU'], limit: 50 });

    expect(page.map((e) => e.entry)).toEqual(Array.from({ length: 50 }, (_, i) => `o${2 * i + 1}`));
    expect(read).toBeLessThanOrEqual(100);
    // events_GetByMarkets' index holds the 150 events with a market (its meta page and one leaf), none of the 100,000
    // without (a few hundred pages).
    const [index] = (
      await db.knex.raw(`select pg_relation_size(?::regclass) / current_setting('block_size')::int as pages`, [
        `${db.schema}.change_events_market_id_idx`,
      ])
    ).rows as Array<{ pages: number | string }>;
    expect(Number(index!.pages)).toBeLessThanOrEqual(2);
  }, 60_000);

  it('backoffice_006 makes the market index partial, and its down makes it whole again', async () => {
    const migration = backofficeMigrations.find((m) => m.name === 'backoffice_006_change_events_market_index_partial')!;
    const definition = async () =>
      (
        (
          await db.knex.raw(`select indexdef from pg_indexes where schemaname = ? and indexname = 'change_events_market_id_idx'`, [
            db.schema,
          ])
        ).rows as Array<{ indexdef: string }>
      ).map((r) => r.indexdef.replace(/^.* USING /, ''));
    expect(await definition()).toEqual(['btree (market, id) WHERE (market IS NOT NULL)']);
    await migration.down!(db.knex, db.schema);
    expect(await definition()).toEqual(['btree (market, id)']);
    await migration.up(db.knex, db.schema);
    expect(await definition()).toEqual(['btree (market, id) WHERE (market IS NOT NULL)']);
  });
}
