import { outboxBatch, outboxInputSql, outboxInsertSql, outboxWritten } from '@commerce/shared-bus';
import { stockCommitEvents } from '@commerce/catalog-core';
import { json } from './catalog-sql';
import { isUniqueViolation, retryContended, type Db, type Knex } from '@commerce/shared-db';
import {
  itemIdParts,
  type CommitStockResult,
  type HoldStockResult,
  type StockClient,
  type UnavailableEntry,
} from '@commerce/catalog-contracts';

interface ItemRow {
  id: string;
  /** In the ERP's units; one item takes `divisor` of them. */
  stock: number;
  /** Items kept by the item's holds in state `held` (live or expired and not yet reclaimed). */
  held: number;
  divisor: number;
  /** The ERP's preorder flag. */
  preorder: boolean;
  /** A preorder item, or its variant in an open delivery window: not limited by its stock. */
  unlimited: boolean;
  /** Read by a commit: other attempts' expired holds of the item still count in `held`. */
  expired?: boolean;
  variant_id: number;
}

interface HoldRow {
  item_id: string;
  quantity: number;
  state: string;
  unavailable: number | null;
}

/** An item of a commit as its stock events name it. */
interface CommitNamed {
  id: string;
  sku: string;
  ean: string;
  variation: string;
  size: string;
  product_id: number;
  external_id: string;
}

/** How many times a hold refused on a row a concurrent change had just freed is tried again before it answers. */
const HOLD_TRIES = 3;
/** How many times a commit is written without a lock while its items move under it, before the locking path. */
const COMMIT_TRIES = 2;

/**
 * Stock holds on the catalog's items (the checkout saga). An item's row counts what its live holds keep (`held`,
 * decision 151): available = floor(stock / divisor) − held; preorder items and variants in an open delivery window
 * are not limited. A hold of one item is one statement (a guarded `update … set held = held + n where available ≥ n`
 * and the hold's row inserted beside it), so the stock row is locked only while Postgres runs it, never across a
 * round trip: thirty buyers of the last ten items queue for milliseconds, and those who come once it is gone are
 * refused without waiting at all (the row no longer matches). A hold of several items is one statement too: its rows
 * locked first in id order (so two holds never deadlock; decision 121), and no counter moved unless every locked row
 * covers its quantity. A new attempt of a selection that holds (its older holds are replaced), or an item with expired holds to
 * reclaim, takes the locking path: the item rows' locks in id order, then the holds'. Every hold leaving `held`
 * (released, replaced, expired, committed, lost) leaves its item's counter in the same statement.
 * A commit decrements the stock of the attempt's holds not yet committed and marks them committed in the same
 * statement, so however often it is called, the stock goes down once; it never goes below 0 (`greatest`, and a
 * check constraint). Holds count items; the stock is in the ERP's units, `stockdivisor` of them an item (decision
 * 22): an item's stock holds floor(stock / divisor) items, and a committed item takes `divisor` units.
 */
export function createStockRepository(db: Db, options: { now?: () => Date; onCommitted?: () => void } = {}): StockClient {
  const now = () => (options.now ?? (() => new Date()))();
  const q = (name: string) => db.qualified(name);
  /** One transaction, run again when Postgres gives it up for a deadlock or a serialization failure (DESIGN §8). */
  const contended = <T>(fn: (trx: Knex.Transaction) => Promise<T>) => retryContended(() => db.transaction(fn));

  // An item as a hold reads it; the divisor as the projection reads it (`stockDivisorOf`): the variation's size
  // table, else the size's, else 1. Followed by a condition on `i`.
  const itemsSql = (
    extra = '',
  ) => `select i.id,${extra} i.stock, i.held, i.preorder, i.variant_id, coalesce(vt.stock_divisor, st.stock_divisor, 1)::int as divisor,
      (i.preorder or exists (select 1 from ${q('delivery_window_variations')} dwv
        join ${q('delivery_windows')} dw on dw.external_id = dwv."window"
        where dw.active_indexed and dwv.variation_external_id = v.external_id)) as unlimited
    from ${q('items')} i
    join ${q('variants')} v on v.id = i.variant_id
    join ${q('sizes')} s on s.id = i.size_id
    left join ${q('size_tables')} vt on vt.external_id = v.size_table_external_id
    left join ${q('size_tables')} st on st.external_id = s.size_table_external_id`;
  const idsIn = `(select jsonb_array_elements_text(cast(? as jsonb)))`;
  const itemOf = (r: ItemRow): ItemRow => ({ ...r, stock: Number(r.stock), held: Number(r.held), divisor: Math.max(1, Number(r.divisor)) });
  const availableOf = (item: ItemRow) => Math.max(0, Math.floor(item.stock / item.divisor) - item.held);

  /** Whether other attempts' expired holds of the item are still counted (`expired`, for a commit: named `at`, `attemptId`). */
  const expiredSql = ` exists (select 1 from ${q('stock_holds')} x
      where x.item_id = i.id and x.state = 'held' and x.expires_at <= :at and x.attempt_id <> :attemptId) as expired,`;

  /** The items, their rows locked in id order (every path that locks items and holds takes the items first). */
  const lockItems = async (trx: Knex.Transaction, ids: string[]) =>
    new Map(
      (
        (await trx.raw(`${itemsSql()} where i.id in ${idsIn} order by i.id for update of i`, [JSON.stringify([...ids].sort())]))
          .rows as ItemRow[]
      ).map((r) => [r.id, itemOf(r)]),
    );

  /**
   * Holds matching `where` (and still `held`) leave `held` for `state` (an SQL expression of the hold's row), and
   * their quantities leave their items' counters, in one statement; answers the items' new counters.
   */
  const unhold = async (
    trx: Knex.Transaction,
    state: { sql: string; bindings: Knex.RawBinding[] },
    where: string,
    bindings: Knex.RawBinding[],
  ) =>
    new Map(
      (
        (
          await trx.raw(
            `with freed as (update ${q('stock_holds')} set state = ${state.sql}, updated_at = ? where state = 'held' and (${where}) returning item_id, quantity)
            update ${q('items')} t set held = t.held - f.quantity
              from (select item_id, sum(quantity)::int as quantity from freed group by item_id) f
              where t.id = f.item_id returning t.id, t.held`,
            [...state.bindings, now(), ...bindings],
          )
        ).rows as Array<{ id: string; held: number }>
      ).map((r) => [r.id, Number(r.held)]),
    );
  const to = (state: 'released' | 'expired' | 'lost') => ({ sql: '?', bindings: [state] });
  /** The locked items as `unhold` left their counters. */
  const heldNow = (items: Map<string, ItemRow>, counters: Map<string, number>) => {
    for (const [id, held] of counters) {
      const item = items.get(id);
      if (item) items.set(id, { ...item, held });
    }
  };

  /** What of `wanted` (item → quantity) the items do not cover; `own` is what of each the asker itself keeps in `held`. */
  const shortOf = (items: Map<string, ItemRow>, wanted: Map<string, number>, own: Map<string, number> = new Map()) => {
    const unavailable: UnavailableEntry[] = [];
    for (const [itemId, quantity] of wanted) {
      const item = items.get(itemId);
      if (item?.unlimited) continue;
      const available = item ? availableOf({ ...item, held: item.held - (own.get(itemId) ?? 0) }) : 0;
      if (quantity > available)
        unavailable.push({
          item: itemId,
          product: item ? String(item.variant_id) : itemIdParts(itemId).product,
          originalQuantity: quantity,
          unavailable: quantity - available,
          available,
        });
    }
    return unavailable;
  };

  /**
   * A hold in one statement, when nothing is to be replaced or reclaimed first: each item's counter goes up only if
   * the item covers it (Postgres re-checks the guard on the row's newest version after a concurrent hold), and the
   * hold's rows are inserted beside them when every item was covered. `blocked`: the attempt already holds, the
   * selection holds (to be replaced), or an item has expired holds to reclaim; then the locking path decides. Of
   * several items the rows are locked first, in id order (decision 121); a locking read answers each row's newest
   * version, so `enough` (every locked row covers its quantity) is exact under the locks, and no counter moves
   * unless it holds: all or nothing in one statement, without a transaction. One item needs no lock first.
   */
  const holdSql = (several: boolean) =>
    `with wanted as (select w.id, w.quantity from json_to_recordset(cast(? as json)) as w(id text, quantity integer)),
    info as (${itemsSql()} where i.id in (select id from wanted)),
    blocked as (
      select 1 from ${q('stock_holds')} where attempt_id = ?
      union all select 1 from ${q('stock_holds')} where selection_id = ? and state = 'held'
      union all select 1 from ${q('stock_holds')} where item_id in (select id from wanted) and state = 'held' and expires_at <= ?),
    ${
      several
        ? `locked as materialized (select i.id, i.stock, i.held from ${q('items')} i
          where i.id in (select id from wanted) and not exists (select 1 from blocked) order by i.id for update),
    enough as (select count(*) = (select count(*) from wanted) as ok from locked l join wanted w on w.id = l.id join info on info.id = l.id
      where info.unlimited or l.stock / greatest(info.divisor, 1) - l.held >= w.quantity),`
        : ''
    }
    bumped as (
      update ${q('items')} t set held = t.held + w.quantity
      from wanted w join info on info.id = w.id
      where t.id = w.id and not exists (select 1 from blocked) ${several ? 'and (select ok from enough)' : ''}
        and (info.unlimited or t.stock / greatest(info.divisor, 1) - t.held >= w.quantity)
      returning t.id),
    inserted as (
      insert into ${q('stock_holds')} (attempt_id, item_id, selection_id, quantity, state, expires_at, created_at, updated_at)
      select ?, w.id, ?, w.quantity, 'held', ?, ?, ? from wanted w join bumped on bumped.id = w.id
      where (select count(*) from bumped) = (select count(*) from wanted)
      returning item_id)
    select (select count(*) from inserted)::int as held, exists (select 1 from blocked) as blocked`;
  const holdAtOnce = async (
    command: { attemptId: string; selectionId: string },
    wanted: Map<string, number>,
    at: Date,
    expiresAt: Date,
  ): Promise<{ held: number; blocked: boolean }> => {
    const bindings = [
      JSON.stringify([...wanted].map(([id, quantity]) => ({ id, quantity }))),
      command.attemptId,
      command.selectionId,
      at,
      command.attemptId,
      command.selectionId,
      expiresAt,
      at,
      at,
    ];
    return (await db.query<{ held: number; blocked: boolean }>(holdSql(wanted.size > 1), bindings))[0] ?? { held: 0, blocked: true };
  };

  /** The items as they are now (no lock): what a refused hold tells. */
  const readItems = async (ids: string[]) =>
    new Map(
      (await db.query<ItemRow>(`${itemsSql()} where i.id in ${idsIn}`, [JSON.stringify(ids)])).map((r) => [r.id, itemOf(r)] as const),
    );

  /** The locking path: items locked in id order, then the selection's older holds replaced and expired ones reclaimed. */
  const holdLocked = (
    command: { attemptId: string; selectionId: string },
    wanted: Map<string, number>,
    at: Date,
    expiresAt: Date,
  ): Promise<HoldStockResult> =>
    contended(async (trx) => {
      // The items of the holds this one replaces leave their counters too: their rows are locked with the wanted ones.
      const older = (await db
        .table('stock_holds', trx)
        .where({ selection_id: command.selectionId, state: 'held' })
        .distinct('item_id')) as Array<{ item_id: string }>;
      const items = await lockItems(trx, [...new Set([...wanted.keys(), ...older.map((h) => h.item_id)])]);
      if (await db.table('stock_holds', trx).where({ attempt_id: command.attemptId }).first()) return { held: true };
      // The selection's older holds are released (replaced); other expired ones on these items reclaimed.
      const counters = await unhold(
        trx,
        { sql: `case when selection_id = ? then 'released' else 'expired' end`, bindings: [command.selectionId] },
        `selection_id = ? or (item_id in ${idsIn} and expires_at <= ?)`,
        [command.selectionId, JSON.stringify([...wanted.keys()]), at],
      );
      heldNow(items, counters);
      const unavailable = shortOf(items, wanted);
      if (unavailable.length > 0) return { held: false, unavailable };
      const rows = [...wanted].map(([id, quantity]) => ({ id, quantity }));
      await trx.raw(
        `update ${q('items')} t set held = t.held + w.quantity from json_to_recordset(cast(? as json)) as w(id text, quantity integer) where t.id = w.id`,
        [JSON.stringify(rows)],
      );
      await db.table('stock_holds', trx).insert(
        rows.map(({ id, quantity }) => ({
          attempt_id: command.attemptId,
          item_id: id,
          selection_id: command.selectionId,
          quantity,
          state: 'held',
          expires_at: expiresAt,
          created_at: at,
          updated_at: at,
        })),
      );
      return { held: true };
    });

  /** The entries a lost hold answered when it was lost (the quantities missing then). */
  const lostEntries = async (trx: Knex.Transaction, lost: HoldRow[]) => {
    const variants = new Map(
      (
        (await db
          .table('items', trx)
          .whereIn(
            'id',
            lost.map((h) => h.item_id),
          )
          .select('id', 'variant_id')) as Array<{ id: string; variant_id: number }>
      ).map((r) => [r.id, String(r.variant_id)]),
    );
    return lost
      .filter((h) => (h.unavailable ?? 0) > 0)
      .map((h) => ({
        item: h.item_id,
        product: variants.get(h.item_id) ?? itemIdParts(h.item_id).product,
        originalQuantity: h.quantity,
        unavailable: h.unavailable!,
        available: h.quantity - h.unavailable!,
      }));
  };

  /**
   * What a commit reads, in one statement: its items' names, the items (with whether other attempts' expired holds
   * of each still count) and its holds. `lock`: the items locked in id order, then the holds (their read waits on
   * `locked`), each locking read answering the row's newest version: items first, then holds, as a hold takes
   * them (the other order deadlocked a commit beside a new payment of the same selection, decision 121). The
   * attempt's items, and what its stock events name of them, never change once it holds.
   */
  const commitRead = async (runner: Knex | Knex.Transaction, attemptId: string, at: Date, lock: boolean) => {
    const read = (
      await runner.raw(
        `with named as materialized (select h.item_id as id, i.sku, i.ean, v.external_id as variation, s.external_id as size,
            p.id as product_id, p.external_id
          from ${q('stock_holds')} h
          left join ${q('items')} i on i.id = h.item_id
          left join ${q('variants')} v on v.id = i.variant_id
          left join ${q('products')} p on p.id = v.product_id
          left join ${q('sizes')} s on s.id = i.size_id
          where h.attempt_id = :attemptId),
        locked as materialized (${itemsSql(expiredSql)}
          where i.id in (select id from named) order by i.id ${lock ? 'for update of i' : ''}),
        holds as materialized (select item_id, quantity, state, unavailable from ${q('stock_holds')}
          where attempt_id = :attemptId and (select count(*) from locked) >= 0 order by item_id ${lock ? 'for update' : ''})
        select (select coalesce(json_agg(n order by n.product_id, n.id), '[]') from named n) as named,
          (select coalesce(json_agg(l), '[]') from locked l) as items,
          (select coalesce(json_agg(h order by h.item_id), '[]') from holds h) as holds`,
        { attemptId, at },
      )
    ).rows[0] as { named: unknown; items: unknown; holds: unknown };
    return {
      named: json<CommitNamed[]>(read.named),
      items: new Map(json<ItemRow[]>(read.items).map((r) => [r.id, itemOf(r)])),
      all: json<HoldRow[]>(read.holds),
    };
  };

  /**
   * What of a commit's holds the stock no longer covers beside the other attempts' live holds: a hold that expired
   * or was replaced may have been sold meanwhile, and then the order is not placed (never oversold).
   */
  const commitShort = (items: Map<string, ItemRow>, holds: HoldRow[]) =>
    shortOf(
      items,
      new Map(holds.map((h) => [h.item_id, h.quantity])),
      new Map(holds.filter((h) => h.state === 'held').map((h) => [h.item_id, h.quantity])),
    );

  /**
   * The commit's write: the stock and counters, the holds committed and the events in one statement. `guarded`:
   * first the items locked in id order, then the holds, and nothing written unless each item's stock is as read (the
   * events' stock before is exact) and still covers its hold beside the other attempts' holds as its counter counts
   * them now (`need` items, `own` of them in the counter: `commitShort` on the locked row), and the holds' states are
   * as read; it returns a row an event written, so none when not. A concurrent hold or release of the same items
   * moves only the counter: the write goes on when the stock still covers it (decision 183).
   */
  const commitWriteSql = (guarded: boolean) => `with ${
    guarded
      ? `expected as (select * from json_to_recordset(cast(:expected as json))
        as e(id text, stock integer, divisor integer, need integer, own integer)),
      states as (select * from json_to_recordset(cast(:states as json)) as s(item_id text, state text)),
      locked as materialized (select i.id, i.stock, i.held from ${q('items')} i where i.id in (select id from expected) order by i.id for update),
      own as materialized (select item_id, state from ${q('stock_holds')}
        where attempt_id = :attemptId and (select count(*) from locked) >= 0 order by item_id for update),
      ok as materialized (select
        (select count(*) from locked l join expected e on e.id = l.id and e.stock = l.stock
          and (e.need = 0 or l.stock / e.divisor - (l.held - e.own) >= e.need)) = (select count(*) from expected)
        and (select count(*) from own o join states s on s.item_id = o.item_id and s.state = o.state) = (select count(*) from states)
        and (select count(*) from own) = (select count(*) from states) as ok),`
      : ''
  }
    taken as (
      update ${q('items')} t set stock = greatest(t.stock - c.units, 0), held = t.held - c.unheld
      from json_to_recordset(cast(:taken as json)) as c(id text, units integer, unheld integer)
      where t.id = c.id ${guarded ? 'and (select ok from ok)' : ''} returning t.id),
    committed as (
      update ${q('stock_holds')} set state = 'committed', updated_at = :at
      where attempt_id = :attemptId and state <> 'committed' ${guarded ? 'and (select ok from ok)' : ''} returning item_id),
    input as (select * from (${outboxInputSql}) x ${guarded ? 'where (select ok from ok)' : ''})
    ${
      guarded
        ? `, written as (${outboxInsertSql('input', ':outbox:')} returning id)
    select (select count(*) from written)::int as written,
      (select coalesce(json_agg(json_build_object('id', l.id, 'stock', l.stock, 'held', l.held)), '[]') from locked l) as items,
      (select coalesce(json_agg(o), '[]') from own o) as holds`
        : outboxInsertSql('input', ':outbox:')
    }`;

  /**
   * The write's bindings: each hold's units off its item's stock, its quantity off the counter while `held`; the
   * items' new quantities on catalog.stock.v1 (the SOAP feed's stock events), the product re-published (the
   * indexer re-reads it) only when one of its items sold out (decisions 149, 174).
   */
  const commitWriteBindings = (attemptId: string, at: Date, named: CommitNamed[], items: Map<string, ItemRow>, holds: HoldRow[]) => {
    const taken = holds.map((h) => ({
      id: h.item_id,
      units: h.quantity * (items.get(h.item_id)?.divisor ?? 1),
      unheld: h.state === 'held' ? h.quantity : 0,
    }));
    const units = new Map(taken.map((t) => [t.id, t.units]));
    const events = stockCommitEvents(
      named
        .filter((r) => units.has(r.id))
        .map((r) => {
          const item = items.get(r.id);
          const before = item?.stock ?? 0;
          return {
            productId: Number(r.product_id),
            externalId: r.external_id,
            variation: r.variation,
            size: r.size,
            sku: r.sku,
            ean: r.ean,
            stockBefore: before,
            stockAfter: Math.max(0, before - (units.get(r.id) ?? 0)),
            divisor: item?.divisor ?? 1,
            preorder: Boolean(item?.preorder),
          };
        }),
    );
    return { ...outboxBatch(events), taken: JSON.stringify(taken), at, attemptId, outbox: `${db.schema}.outbox` };
  };

  /**
   * A commit without a transaction: its read (no lock), then the guarded write. Answers `locking` when the locking
   * path must decide (a hold lost, an item with other attempts' expired holds to reclaim, the stock short), `moved`
   * when the write found an item's stock or a hold no longer as read, or the stock no longer covering the hold (a
   * concurrent commit, release or ERP change), `COMMIT_TRIES` times: nothing written then. A write that wrote
   * nothing answers the items and holds as it locked them, and the next write goes by them without reading again
   * (the names, divisors and hold quantities of an attempt never change once it holds).
   */
  const commitAtOnce = async (attemptId: string, at: Date): Promise<CommitStockResult | 'locking' | 'moved'> => {
    const read = await commitRead(db.knex, attemptId, at, false);
    const { named } = read;
    let { items, all } = read;
    if (named.length === 0) return { committed: 0 };
    if ([...items.values()].some((i) => i.expired)) return 'locking';
    for (let tries = 1; ; tries++) {
      // Committed and lost are final: a commit of committed holds does nothing; a lost one answers with the locks.
      if (all.some((h) => h.state === 'lost')) return 'locking';
      const holds = all.filter((h) => h.state !== 'committed');
      if (holds.length === 0) return { committed: 0 };
      if (commitShort(items, holds).length > 0) return 'locking';
      const holdOf = new Map(holds.map((h) => [h.item_id, h]));
      const expected = [...items.values()].map((i) => {
        const hold = holdOf.get(i.id);
        return {
          id: i.id,
          stock: i.stock,
          divisor: i.divisor,
          need: hold && !i.unlimited ? hold.quantity : 0,
          own: hold?.state === 'held' ? hold.quantity : 0,
        };
      });
      const row = (
        await db.knex.raw(commitWriteSql(true), {
          ...commitWriteBindings(attemptId, at, named, items, holds),
          expected: JSON.stringify(expected),
          states: JSON.stringify(all.map((h) => ({ item_id: h.item_id, state: h.state }))),
        })
      ).rows[0] as { written: number; items: unknown; holds: unknown };
      if (Number(row.written) > 0) {
        outboxWritten(db);
        return { committed: holds.length };
      }
      if (tries >= COMMIT_TRIES) return 'moved';
      // As the write found them under its locks: the next write's expected stock, counters and states.
      const locked = new Map(json<Array<{ id: string; stock: number; held: number }>>(row.items).map((r) => [r.id, r]));
      items = new Map(
        [...items].map(([id, item]) => {
          const now = locked.get(id);
          return [id, now ? { ...item, stock: Number(now.stock), held: Number(now.held) } : item];
        }),
      );
      const states = new Map(json<Array<{ item_id: string; state: string }>>(row.holds).map((h) => [h.item_id, h.state]));
      all = all.map((h) => ({ ...h, state: states.get(h.item_id) ?? h.state }));
    }
  };

  return {
    async holdStock(command): Promise<HoldStockResult> {
      const wanted = new Map<string, number>();
      for (const line of command.lines) wanted.set(line.item, (wanted.get(line.item) ?? 0) + line.quantity);
      const at = now();
      const expiresAt = new Date(at.getTime() + command.ttlSeconds * 1000);
      if (wanted.size === 0) return holdLocked(command, wanted, at, expiresAt);
      for (let tries = 1; ; tries++) {
        const once = await retryContended(() => holdAtOnce(command, wanted, at, expiresAt)).catch((error: unknown) => {
          // The same attempt held at the same time (its hold's key is taken): the locking path answers its hold.
          if (isUniqueViolation(error)) return { held: 0, blocked: true };
          throw error;
        });
        if (once.blocked) return holdLocked(command, wanted, at, expiresAt);
        if (Number(once.held) === wanted.size) return { held: true };
        // Refused: what is there now. A hold released meanwhile may have freed enough; then it is tried again.
        const unavailable = shortOf(await readItems([...wanted.keys()]), wanted);
        if (unavailable.length > 0) return { held: false, unavailable };
        if (tries >= HOLD_TRIES) return holdLocked(command, wanted, at, expiresAt);
      }
    },

    async releaseStock(attemptId) {
      await contended(async (trx) => {
        const ids = (
          (await db.table('stock_holds', trx).where({ attempt_id: attemptId, state: 'held' }).distinct('item_id')) as Array<{
            item_id: string;
          }>
        ).map((r) => r.item_id);
        if (ids.length === 0) return;
        await lockItems(trx, ids);
        await unhold(trx, to('released'), 'attempt_id = ?', [attemptId]);
      });
    },

    async commitStock(attemptId): Promise<CommitStockResult> {
      const at = now();
      // Without a lock first: read, then one statement that writes only if every item's stock and hold is still as
      // read (then the events made from the read are exact) and covers the hold; a write that found them moved, once
      // more with what it found. Otherwise, or when something is to be reclaimed or lost, the locking path decides.
      const fast = await retryContended(() => commitAtOnce(attemptId, at));
      const result =
        typeof fast === 'object'
          ? fast
          : await contended(async (trx): Promise<CommitStockResult> => {
              const { named, items, all } = await commitRead(trx, attemptId, at, true);
              if (named.length === 0) return { committed: 0 };
              const lost = all.filter((h) => h.state === 'lost');
              if (lost.length > 0) return { committed: 0, unavailable: await lostEntries(trx, lost) };
              const holds = all.filter((h) => h.state !== 'committed');
              if (holds.length === 0) return { committed: 0 };
              // Other attempts' expired holds on these items no longer count: reclaimed, so the check below is exact.
              const stale = [...items.values()].filter((i) => i.expired).map((i) => i.id);
              if (stale.length > 0) {
                const counters = await unhold(trx, to('expired'), `item_id in ${idsIn} and expires_at <= ? and attempt_id <> ?`, [
                  JSON.stringify(stale),
                  at,
                  attemptId,
                ]);
                heldNow(items, counters);
              }
              const unavailable = commitShort(items, holds);
              if (unavailable.length > 0) {
                await unhold(trx, to('lost'), 'attempt_id = ?', [attemptId]);
                for (const hold of holds) {
                  const short = unavailable.find((u) => u.item === hold.item_id)?.unavailable ?? 0;
                  await db
                    .table('stock_holds', trx)
                    .where({ attempt_id: attemptId, item_id: hold.item_id })
                    .update({ state: 'lost', unavailable: short, updated_at: at });
                }
                return { committed: 0, unavailable };
              }
              // Under the items' locks their stock after is known: the stock and counters, the holds committed and the
              // events in one statement.
              await trx.raw(commitWriteSql(false), commitWriteBindings(attemptId, at, named, items, holds));
              outboxWritten(db, trx);
              return { committed: holds.length };
            });
      if (result.committed > 0) options.onCommitted?.();
      return result;
    },
  };
}
