import type { Knex } from 'knex';
import { isUniqueViolation, type Db } from '@commerce/shared-db';
import type { Selection, SelectionLine, SelectionRepository } from '@commerce/cart-core';

interface SelectionRow {
  id: string;
  status: 'open' | 'closed';
  currency: string;
  country: string | null;
  state: string | null;
  language: string | null;
  payment_method: string;
  shipping_method: string;
  vouchers: string[] | string;
  payment_fields: Record<string, string> | string;
}
interface LineRow {
  line: string;
  item: string;
  product: string;
  size: string;
  sku: string;
  ean: string;
  product_name: string;
  brand_name: string;
  quantity: number;
  /** Minor units (bigint, read as text); null on a row an older replica wrote (decimal only). */
  price_each_minor: string | number | null;
  price_each_before_discount_minor: string | number | null;
  price_each: string | null;
  price_each_before_discount: string | null;
  quantity_minimum: number;
  quantity_multiple_of: number;
  /** The ERP's ids (`007_line_external_ids`): all four or none (a line added before, or by an older replica). */
  external_product: string | null;
  external_variation: string | null;
  external_size: string | null;
  external_brand: string | null;
}

const SELECTION_COLUMNS = [
  'id',
  'status',
  'currency',
  'country',
  'state',
  'language',
  'payment_method',
  'shipping_method',
  'vouchers',
  'payment_fields',
];
const LINE_COLUMNS = [
  'line',
  'item',
  'product',
  'size',
  'sku',
  'ean',
  'product_name',
  'brand_name',
  'quantity',
  'price_each_minor',
  'price_each_before_discount_minor',
  'price_each',
  'price_each_before_discount',
  'quantity_minimum',
  'quantity_multiple_of',
  'external_product',
  'external_variation',
  'external_size',
  'external_brand',
];

const json = <T>(value: T | string): T => (typeof value === 'string' ? (JSON.parse(value) as T) : value);

/** The currency's minor digits as the store configures it (the cart's money is in them: docs/pricing.md). */
export type DigitsOf = (currency: string) => number;

/** A decimal column's text (`"199.9000"`) in minor units; what older replicas wrote before `006_line_price_minor`. */
const minorOfDecimal = (decimal: string, digits: number): number => Math.round(Number(decimal) * 10 ** digits);
/** Minor units as the decimal text the older replicas read (`19990`, 2 → `"199.90"`), exact, never through a float. */
export const decimalOfMinor = (minor: number, digits: number): string => {
  if (digits === 0) return String(minor);
  const text = String(minor).padStart(digits + 1, '0');
  return `${text.slice(0, -digits)}.${text.slice(-digits)}`;
};

function toSelection(row: SelectionRow, lines: LineRow[], digitsOf: DigitsOf): Selection {
  const minor = (value: string | number | null, decimal: string | null): number =>
    value !== null ? Number(value) : minorOfDecimal(decimal ?? '0', digitsOf(row.currency));
  return {
    id: row.id,
    status: row.status,
    currency: row.currency,
    country: row.country,
    state: row.state,
    language: row.language,
    paymentMethod: row.payment_method,
    shippingMethod: row.shipping_method,
    vouchers: json(row.vouchers),
    paymentFields: json(row.payment_fields),
    lines: lines.map((l): SelectionLine => ({
      line: l.line,
      item: l.item,
      product: l.product,
      size: l.size,
      sku: l.sku,
      ean: l.ean,
      productName: l.product_name,
      brandName: l.brand_name,
      quantity: Number(l.quantity),
      priceEachMinor: minor(l.price_each_minor, l.price_each),
      priceEachBeforeDiscountMinor: minor(
        l.price_each_before_discount_minor ?? l.price_each_minor,
        l.price_each_before_discount ?? l.price_each,
      ),
      quantityMinimum: Number(l.quantity_minimum),
      quantityMultipleOf: Number(l.quantity_multiple_of),
      ...externalOf(l),
    })),
  };
}

/** A line's ERP ids when its row has them (all four are written together). */
const externalOf = (l: LineRow): Pick<SelectionLine, 'external'> =>
  l.external_product === null || l.external_variation === null || l.external_size === null || l.external_brand === null
    ? {}
    : { external: { product: l.external_product, variation: l.external_variation, size: l.external_size, brand: l.external_brand } };

/** A line's row; `digits` of the selection's currency, for the decimal copy older replicas read during a rolling update. */
const lineRow = (selectionId: string, l: SelectionLine, digits: number) => ({
  selection_id: selectionId,
  line: l.line,
  item: l.item,
  product: l.product,
  size: l.size,
  sku: l.sku,
  ean: l.ean,
  product_name: l.productName,
  brand_name: l.brandName,
  quantity: l.quantity,
  price_each_minor: l.priceEachMinor,
  price_each_before_discount_minor: l.priceEachBeforeDiscountMinor,
  price_each: decimalOfMinor(l.priceEachMinor, digits),
  price_each_before_discount: decimalOfMinor(l.priceEachBeforeDiscountMinor, digits),
  quantity_minimum: l.quantityMinimum,
  quantity_multiple_of: l.quantityMultipleOf,
  external_product: l.external?.product ?? null,
  external_variation: l.external?.variation ?? null,
  external_size: l.external?.size ?? null,
  external_brand: l.external?.brand ?? null,
});

/** Optimistic tries of a change before it queues for the row lock (decision 51). */
const OPTIMISTIC_ATTEMPTS = 3;
/** Selections this process last read or wrote, kept with their version (decision 62). */
const KEPT_SELECTIONS = 10_000;

/** A line column's SQL type, for the typed placeholders of the one-statement write. */
const LINE_CASTS: Record<string, string> = {
  quantity: 'integer',
  price_each_minor: 'bigint',
  price_each_before_discount_minor: 'bigint',
  price_each: 'numeric',
  price_each_before_discount: 'numeric',
  quantity_minimum: 'integer',
  quantity_multiple_of: 'integer',
};

const LINE_FIELDS = [
  'line',
  'item',
  'product',
  'size',
  'sku',
  'ean',
  'productName',
  'brandName',
  'quantity',
  'priceEachMinor',
  'priceEachBeforeDiscountMinor',
  'quantityMinimum',
  'quantityMultipleOf',
] as const satisfies ReadonlyArray<Exclude<keyof SelectionLine, 'external'>>;
// Every field of a line but its ids is in LINE_FIELDS (a field added to SelectionLine and not here fails to compile).
const everyLineField: Exclude<keyof SelectionLine, 'external'> extends (typeof LINE_FIELDS)[number] ? true : never = true;
void everyLineField;
const sameExternal = (a: SelectionLine['external'], b: SelectionLine['external']) =>
  a === b ||
  (a !== undefined &&
    b !== undefined &&
    a.product === b.product &&
    a.variation === b.variation &&
    a.size === b.size &&
    a.brand === b.brand);
const sameLine = (a: SelectionLine, b: SelectionLine) => LINE_FIELDS.every((k) => a[k] === b[k]) && sameExternal(a.external, b.external);

export function createSelectionRepository(db: Db, digitsOf: DigitsOf): SelectionRepository {
  // Each selection as this process last read or wrote it, with its version then (decision 62): a change starts
  // from it instead of reading, and its conditional write (on that version) proves it current or sends the
  // change back to a read. The entries are never changed (a change makes new objects); oldest out.
  const kept = new Map<string, { selection: Selection; version: number }>();
  // How often a kept try was stale lately (an exponential average: 1 stale, 0 current). Replicas that take one
  // selection's changes in turn make most kept copies stale, and a stale try costs a statement more than a read
  // first: from half stale on, this process reads first until the average has decayed below a quarter (about
  // 70 changes later), then tries its kept copies again.
  let staleRate = 0;
  let keptOff = false;
  const keptTried = (stale: boolean) => {
    staleRate = staleRate * 0.95 + (stale ? 0.05 : 0);
    if (staleRate >= 0.5) keptOff = true;
  };
  const keptSkipped = () => {
    staleRate *= 0.99;
    if (staleRate < 0.25) keptOff = false;
  };
  const keep = (selection: Selection, version: number) => {
    // A read that left before a write of this process came back after it: the write's is newer.
    if ((kept.get(selection.id)?.version ?? -1) > version) return;
    kept.delete(selection.id);
    const oldest = kept.size >= KEPT_SELECTIONS ? kept.keys().next().value : undefined;
    if (oldest !== undefined) kept.delete(oldest);
    kept.set(selection.id, { selection, version });
  };
  const selectionFields = (s: Selection) => ({
    currency: s.currency,
    country: s.country,
    state: s.state,
    language: s.language,
    payment_method: s.paymentMethod,
    shipping_method: s.shippingMethod,
    vouchers: JSON.stringify(s.vouchers),
    payment_fields: JSON.stringify(s.paymentFields),
  });

  const locked = async (trx: Knex.Transaction, where: Record<string, unknown>): Promise<Selection | null> => {
    const row = (await db
      .table('selections', trx)
      .where({ ...where, status: 'open' })
      .forUpdate()
      .first(...SELECTION_COLUMNS)) as SelectionRow | undefined;
    if (!row) return null;
    const lines = (await db
      .table('selection_lines', trx)
      .where({ selection_id: row.id })
      .orderBy('seq')
      .select(...LINE_COLUMNS)) as LineRow[];
    return toSelection(row, lines, digitsOf);
  };

  const write = async (trx: Knex.Transaction, before: Selection, after: Selection) => {
    const id = before.id;
    const { gone, added, changed } = linesChanged(before, after);
    if (gone.length) await db.table('selection_lines', trx).where({ selection_id: id }).whereIn('line', gone).delete();
    const digits = digitsOf(after.currency);
    for (const line of added) await db.table('selection_lines', trx).insert(lineRow(id, line, digits));
    for (const line of changed) {
      const { selection_id: _s, line: _l, ...fields } = lineRow(id, line, digits);
      await db.table('selection_lines', trx).where({ selection_id: id, line: line.line }).update(fields);
    }
    await db
      .table('selections', trx)
      .where({ id })
      .update({ ...selectionFields(after), updated_at: db.knex.fn.now(), version: db.knex.raw('version + 1') });
  };

  /** What a change must write: the lines it removed, those it added, and those it changed. */
  const linesChanged = (before: Selection, after: Selection) => {
    const kept = new Set(after.lines.map((l) => l.line));
    const old = new Map(before.lines.map((l) => [l.line, l]));
    const added: SelectionLine[] = [];
    const changed: SelectionLine[] = [];
    for (const l of after.lines) {
      const previous = old.get(l.line);
      if (!previous) added.push(l);
      else if (!sameLine(previous, l)) changed.push(l);
    }
    return { gone: before.lines.filter((l) => !kept.has(l.line)).map((l) => l.line), added, changed };
  };

  /** Whether a change leaves the selection's own columns (not its lines) as they were. */
  const sameFields = (before: Selection, after: Selection) =>
    before.currency === after.currency &&
    before.country === after.country &&
    before.state === after.state &&
    before.language === after.language &&
    before.paymentMethod === after.paymentMethod &&
    before.shippingMethod === after.shippingMethod &&
    (before.vouchers === after.vouchers || JSON.stringify(before.vouchers) === JSON.stringify(after.vouchers)) &&
    (before.paymentFields === after.paymentFields || JSON.stringify(before.paymentFields) === JSON.stringify(after.paymentFields));

  // The hot path (decision 51) as fixed SQL texts on `db.query` (prepared statements on Postgres, no query
  // builder): the tables quoted (`db.qualified`), the columns are constants.
  const selections = db.qualified('selections');
  const selectionLines = db.qualified('selection_lines');
  const readOpenSql = `select s.version as selection_version, ${SELECTION_COLUMNS.map((c) => `s.${c}`).join(', ')}, ${LINE_COLUMNS.map((c) => `l.${c}`).join(', ')}
    from ${selections} s left join ${selectionLines} l on l.selection_id = s.id
    where s.id = ? and s.status = 'open' order by l.seq`;
  // What a change may set: every selection column but its id and status, in the order of selectionFields.
  const SET_COLUMNS = SELECTION_COLUMNS.filter((c) => c !== 'id' && c !== 'status') as Array<keyof ReturnType<typeof selectionFields>>;
  // The selection's row is always raised to the next version; its own columns are set only by a change of them
  // (an item's add changes lines only: no JSON to send and parse).
  const updateSql = (fields: boolean) =>
    `with s as (update ${selections} set ${
      fields ? `${SET_COLUMNS.map((c) => (c === 'vouchers' || c === 'payment_fields' ? `${c} = ?::jsonb` : `${c} = ?`)).join(', ')}, ` : ''
    }updated_at = now(), version = version + 1 where id = ? and status = 'open' and version = ? returning id)`;
  const lineValues = `(${LINE_COLUMNS.map((c) => `?::${LINE_CASTS[c] ?? 'text'}`).join(', ')})`;
  const lineList = (n: number) => `(values ${Array(n).fill(lineValues).join(', ')}) as v (${LINE_COLUMNS.join(', ')})`;
  // One text per shape, made once: the same string each time (its hash kept for the prepared-statement lookup).
  const writeSqls = new Map<string, string>();
  const writeSql = (fields: boolean, gone: number, added: number, changed: number): string => {
    const shape = `${fields ? 1 : 0}:${gone}:${added}:${changed}`;
    let sql = writeSqls.get(shape);
    if (sql === undefined) {
      sql = writeSqlOf(fields, gone, added, changed);
      if (writeSqls.size > 1000) writeSqls.clear();
      writeSqls.set(shape, sql);
    }
    return sql;
  };
  // Added lines are inserted and changed ones updated in place (by their unique line id, on the selection the
  // conditional update matched): no speculative insert, no sequence value spent, no conflict check per change.
  const writeSqlOf = (fields: boolean, gone: number, added: number, changed: number): string => {
    let sql = updateSql(fields);
    if (gone)
      sql += `, d as (delete from ${selectionLines} where selection_id in (select id from s) and line in (${Array(gone).fill('?').join(', ')}))`;
    if (added)
      sql += `, i as (insert into ${selectionLines} (selection_id, ${LINE_COLUMNS.join(', ')}) select s.id, v.* from s cross join ${lineList(added)})`;
    if (changed)
      sql += `, u as (update ${selectionLines} l set ${LINE_COLUMNS.filter((c) => c !== 'line')
        .map((c) => `${c} = v.${c}`)
        .join(', ')} from ${lineList(changed)} where l.selection_id = (select id from s) and l.line = v.line)`;
    return `${sql} select count(*)::int as n from s`;
  };

  /**
   * The whole write of a change as one statement, applied only if the selection is still open at the
   * version it was read at (and then raised): true when it was. Its parts see one snapshot, and run only
   * when the conditional update matched, i.e. when nothing has changed the selection since it was read.
   */
  const writeIfUnchanged = async (before: Selection, version: number, after: Selection): Promise<boolean> => {
    const { gone, added, changed } = linesChanged(before, after);
    const fieldsChanged = !sameFields(before, after);
    const bindings: unknown[] = [];
    if (fieldsChanged) {
      const fields = selectionFields(after);
      for (const c of SET_COLUMNS) bindings.push(fields[c]);
    }
    bindings.push(before.id, version, ...gone);
    for (const line of [...added, ...changed]) {
      const r = lineRow(before.id, line, digitsOf(after.currency)) as Record<string, unknown>;
      for (const c of LINE_COLUMNS) bindings.push(r[c] ?? null);
    }
    const rows = await db.query<{ n: number }>(writeSql(fieldsChanged, gone.length, added.length, changed.length), bindings);
    return Number(rows[0]?.n) === 1;
  };

  /**
   * A new selection and its lines in one statement (decision 157): the selection's row, and its lines inserted
   * in their order from the row the insert returned. One text per number of lines.
   */
  const createSqls = new Map<number, string>();
  const createWithLines = async (s: Selection, customerId: string | undefined) => {
    const n = s.lines.length;
    let sql = createSqls.get(n);
    if (sql === undefined) {
      const columns = ['id', 'status', 'customer_id', ...SET_COLUMNS];
      const values = columns.map((c) => (c === 'vouchers' || c === 'payment_fields' ? '?::jsonb' : c === 'id' ? '?::uuid' : '?'));
      sql = `with s as (insert into ${selections} (${columns.join(', ')}) values (${values.join(', ')}) returning id),
        i as (insert into ${selectionLines} (selection_id, ${LINE_COLUMNS.join(', ')}) select s.id, v.* from s cross join ${lineList(n)})
        select count(*)::int as n from s`;
      if (createSqls.size > 100) createSqls.clear();
      createSqls.set(n, sql);
    }
    const fields = selectionFields(s);
    const bindings: unknown[] = [s.id, s.status, customerId ?? null, ...SET_COLUMNS.map((c) => fields[c])];
    for (const line of s.lines) {
      const r = lineRow(s.id, line, digitsOf(s.currency)) as Record<string, unknown>;
      for (const c of LINE_COLUMNS) bindings.push(r[c] ?? null);
    }
    await db.query(sql, bindings);
  };

  // Arrays as rows (`unnest … with ordinality`: n is the row's place), each array typed by its column.
  const unnestOf = (alias: string, columns: string[], casts: Record<string, string>) =>
    `unnest(${columns.map((c) => `?::${casts[c] ?? 'text'}[]`).join(', ')}) with ordinality as ${alias} (${columns.join(', ')}, n)`;
  const LINE_ARRAY_CASTS = { ...LINE_CASTS, selection_id: 'uuid' };
  /** A line's row onto the statement's arrays: its selection's id in the first, a column in each next one. */
  const pushLine = (into: unknown[][], id: string, line: SelectionLine, digits: number) => {
    const r = lineRow(id, line, digits) as Record<string, unknown>;
    into[0]!.push(id);
    LINE_COLUMNS.forEach((c, k) => into[k + 1]!.push(r[c] ?? null));
  };
  /** The lines given as arrays inserted in their order, those of the selections the statement's `s` wrote only. */
  const insertLinesOfS = `insert into ${selectionLines} (selection_id, ${LINE_COLUMNS.join(', ')})
      select a.selection_id, ${LINE_COLUMNS.map((c) => `a.${c}`).join(', ')} from ${unnestOf('a', ['selection_id', ...LINE_COLUMNS], LINE_ARRAY_CASTS)}
      where a.selection_id in (select id from s) order by a.n`;
  /**
   * New anonymous selections and their lines in one statement (decision 184), from arrays (`unnest`): one text
   * for every count, so one prepared statement. The lines go in their selections' order, each after its row.
   */
  const createManySql = `with s as (insert into ${selections} (id, status, ${SET_COLUMNS.join(', ')})
      select n.id, 'open', ${SET_COLUMNS.map((c) => (c === 'vouchers' || c === 'payment_fields' ? `n.${c}::jsonb` : `n.${c}`)).join(', ')}
      from ${unnestOf('n', ['id', ...SET_COLUMNS], { id: 'uuid' })} returning id),
    i as (${insertLinesOfS})
    select count(*)::int as n from s`;
  const createMany = async (made: Selection[]): Promise<void> => {
    const rows = Array.from({ length: 1 + SET_COLUMNS.length }, (): unknown[] => []);
    const lines = Array.from({ length: 1 + LINE_COLUMNS.length }, (): unknown[] => []);
    for (const s of made) {
      const fields = selectionFields(s);
      rows[0]!.push(s.id);
      SET_COLUMNS.forEach((c, k) => rows[k + 1]!.push(fields[c]));
      for (const line of s.lines) pushLine(lines, s.id, line, digitsOf(s.currency));
    }
    await db.query(createManySql, [...rows, ...lines]);
    for (const s of made) keep(s, 0);
  };

  /** The open selection and its version, in one statement (no lock). */
  const readOpen = async (id: string): Promise<{ selection: Selection; version: number } | null> => {
    const rows = await db.query<SelectionRow & LineRow & { line: string | null; selection_version: number }>(readOpenSql, [id]);
    const row = rows[0];
    if (!row) {
      kept.delete(id);
      return null;
    }
    const read = {
      selection: toSelection(
        row,
        rows.filter((l) => l.line !== null),
        digitsOf,
      ),
      version: Number(row.selection_version),
    };
    keep(read.selection, read.version);
    return read;
  };

  const claimOnce = (customerId: string, anonymousId: string | null, merge: (saved: Selection, anonymous: Selection) => Selection) =>
    db.transaction(async (trx: Knex.Transaction): Promise<Selection | null> => {
      const saved = await locked(trx, { customer_id: customerId });
      const anonymous = anonymousId && anonymousId !== saved?.id ? await locked(trx, { id: anonymousId, customer_id: null }) : null;
      if (!anonymous) return saved;
      if (!saved) {
        await db
          .table('selections', trx)
          .where({ id: anonymous.id })
          .update({ customer_id: customerId, updated_at: db.knex.fn.now(), version: db.knex.raw('version + 1') });
        return anonymous;
      }
      // The anonymous lines leave their selection first: a line id is unique across selections.
      await db.table('selection_lines', trx).where({ selection_id: anonymous.id }).delete();
      await db.table('selections', trx).where({ id: anonymous.id }).update({ status: 'closed', updated_at: db.knex.fn.now() });
      const merged = merge(saved, anonymous);
      await write(trx, saved, merged);
      return merged;
    });

  const update = async (id: string, change: (selection: Selection) => Selection): Promise<Selection | null> => {
    // Optimistic first (decision 51): read in one statement, write in one statement that applies only at
    // the version read. Two round trips and no transaction when nobody else changes the selection meanwhile.
    // The first try starts from the selection as this process last read or wrote it, without reading
    // (decision 62): one round trip. A kept selection that is no longer current fails the version check (or
    // refuses the change: an unknown line, a quantity rule) and the change is tried again from a read.
    let fromKept = keptOff ? undefined : kept.get(id);
    if (keptOff) keptSkipped();
    for (let attempt = 0; attempt < OPTIMISTIC_ATTEMPTS; attempt++) {
      const tryKept = fromKept !== undefined;
      const read = fromKept ?? (await readOpen(id));
      fromKept = undefined;
      if (!read) return null;
      let after: Selection;
      try {
        after = change(read.selection);
      } catch (e) {
        if (!tryKept) throw e;
        keptTried(true);
        kept.delete(id);
        attempt--;
        continue;
      }
      try {
        const written = await writeIfUnchanged(read.selection, read.version, after);
        if (tryKept) keptTried(!written);
        if (written) {
          keep(after, read.version + 1);
          return after;
        }
        kept.delete(id);
        if (tryKept) attempt--;
      } catch (e) {
        kept.delete(id);
        // A line removed and its item added again in one change meets the (selection, item) index inside
        // one statement: the locked path below writes it in two.
        if (!isUniqueViolation(e)) throw e;
        break;
      }
    }
    // Contended: queue for the row lock, which serialises the changes of one selection.
    return db
      .transaction(async (trx: Knex.Transaction): Promise<Selection | null> => {
        // The row lock serialises changes of one selection: read, decide and write happen as one. The lines
        // are read by a second statement on purpose: under READ COMMITTED it sees what the transaction that
        // held the lock committed, where lines joined to the locking query would come from its older snapshot.
        const before = await locked(trx, { id });
        if (!before) return null;
        const after = change(before);
        await write(trx, before, after);
        return after;
      })
      .finally(() => kept.delete(id));
  };

  // A batch's item adds as one statement (decision 78): the changes that start from a kept selection and change
  // only its lines, each applied only at its kept version, from arrays (one text for every batch: one prepared
  // statement). A selection whose version moved is left out by its own row's condition, not the others'.
  const updateManySql = `with v as (select * from unnest(?::uuid[], ?::integer[]) as v (id, version)),
    s as (update ${selections} t set updated_at = now(), version = t.version + 1 from v
      where t.id = v.id and t.status = 'open' and t.version = v.version returning t.id),
    d as (delete from ${selectionLines} l using unnest(?::uuid[], ?::text[]) as g (selection_id, line)
      where l.selection_id = g.selection_id and l.line = g.line and g.selection_id in (select id from s)),
    i as (${insertLinesOfS}),
    u as (update ${selectionLines} l set ${LINE_COLUMNS.filter((c) => c !== 'line')
      .map((c) => `${c} = c.${c}`)
      .join(', ')} from ${unnestOf('c', ['selection_id', ...LINE_COLUMNS], LINE_ARRAY_CASTS)}
      where l.selection_id = c.selection_id and l.line = c.line and c.selection_id in (select id from s))
    select id from s`;

  interface Combined {
    index: number;
    id: string;
    change: (selection: Selection) => Selection;
    before: Selection;
    version: number;
    after: Selection;
  }
  /** The combined changes in one statement: the ids it wrote; throws when the statement fails (nothing written). */
  const writeCombined = async (combined: Combined[]): Promise<Set<string>> => {
    const columns = (n: number) => Array.from({ length: n }, (): unknown[] => []);
    const ids: string[] = [];
    const versions: number[] = [];
    const gone = columns(2);
    const added = columns(1 + LINE_COLUMNS.length);
    const changed = columns(1 + LINE_COLUMNS.length);
    for (const { id, before, version, after } of combined) {
      ids.push(id);
      versions.push(version);
      const lines = linesChanged(before, after);
      for (const line of lines.gone) {
        gone[0]!.push(id);
        gone[1]!.push(line);
      }
      for (const line of lines.added) pushLine(added, id, line, digitsOf(after.currency));
      for (const line of lines.changed) pushLine(changed, id, line, digitsOf(after.currency));
    }
    const rows = await db.query<{ id: string }>(updateManySql, [ids, versions, ...gone, ...added, ...changed]);
    return new Set(rows.map((r) => r.id));
  };

  /**
   * Several changes, each with its own outcome, as `update` would give it for each (decision 78). Those of a
   * selection met once in the batch that start from a kept selection and change only its lines are written
   * together in one statement; the others (and those whose version moved, or all of them when that statement
   * fails) go through `update`, a selection's changes one after the other in the batch's order.
   */
  const updateMany = async (
    items: Array<{ id: string; change: (selection: Selection) => Selection }>,
  ): Promise<Array<PromiseSettledResult<Selection | null>>> => {
    const times = new Map<string, number>();
    for (const { id } of items) times.set(id, (times.get(id) ?? 0) + 1);
    const combined: Combined[] = [];
    const outcomes: Array<Promise<Selection | null>> = [];
    const chains = new Map<string, Promise<unknown>>();
    const alone = (id: string, change: (selection: Selection) => Selection) => {
      const before = chains.get(id);
      const run = () => update(id, change);
      const outcome = before ? before.then(run, run) : run();
      chains.set(id, outcome);
      return outcome;
    };
    items.forEach(({ id, change }, index) => {
      const from = keptOff || times.get(id)! > 1 ? undefined : kept.get(id);
      if (from) {
        try {
          const after = change(from.selection);
          if (sameFields(from.selection, after)) {
            combined.push({ index, id, change, before: from.selection, version: from.version, after });
            return;
          }
        } catch {
          // Refused on the kept state (which may be stale): `update` tries and reads again as for one change.
        }
      }
      outcomes[index] = alone(id, change);
    });
    if (combined.length === 1) outcomes[combined[0]!.index] = alone(combined[0]!.id, combined[0]!.change);
    else if (combined.length > 1) {
      const written = writeCombined(combined);
      for (const c of combined)
        outcomes[c.index] = written.then(
          (ids) => {
            const stale = !ids.has(c.id);
            keptTried(stale);
            if (stale) {
              kept.delete(c.id);
              return update(c.id, c.change);
            }
            keep(c.after, c.version + 1);
            return c.after;
          },
          // Nothing was written (a line's unique index met, a deadlock): each change as on its own.
          () => update(c.id, c.change),
        );
    }
    return Promise.allSettled(outcomes);
  };

  return {
    createMany,

    async create(s, customerId) {
      try {
        if (s.lines.length) await createWithLines(s, customerId);
        else await db.table('selections').insert({ id: s.id, status: s.status, customer_id: customerId ?? null, ...selectionFields(s) });
        keep(s, 0);
        return true;
      } catch (e) {
        if (customerId && isUniqueViolation(e)) return false;
        throw e;
      }
    },

    async close(id) {
      kept.delete(id);
      // Closed, a customer's saved selection frees its place: the next one made for the customer is the new saved one.
      const closed = await db.table('selections').where({ id, status: 'open' }).update({ status: 'closed', updated_at: db.knex.fn.now() });
      return Number(closed) > 0;
    },

    async findSavedId(customerId) {
      const row = (await db.table('selections').where({ customer_id: customerId, status: 'open' }).first('id')) as
        { id: string } | undefined;
      return row?.id ?? null;
    },

    async claim(customerId, anonymousId, merge) {
      if (anonymousId) kept.delete(anonymousId);
      for (let attempt = 0; ; attempt++) {
        try {
          const claimed = await claimOnce(customerId, anonymousId, merge);
          if (claimed) kept.delete(claimed.id);
          return claimed;
        } catch (e) {
          // Another device made the saved selection meanwhile: the second attempt merges into it.
          if (attempt === 0 && isUniqueViolation(e)) continue;
          throw e;
        }
      }
    },

    async findOpen(id) {
      // One round trip: the selection and its lines (none: one row with null line columns).
      return (await readOpen(id))?.selection ?? null;
    },

    update,

    updateMany,
  };
}
