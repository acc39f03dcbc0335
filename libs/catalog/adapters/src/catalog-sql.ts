import { SuffixRuns } from '@commerce/catalog-core';
import type { Db, Knex } from '@commerce/shared-db';

/**
 * What the catalog's knex repositories share: where their statements run, the conversions of what the
 * drivers hand back, and the statements more than one of them writes with.
 */

/** Where a repository's statements run: the catalog's schema, inside `trx` when given (a unit of work's). */
export interface SqlScope {
  db: Db;
  trx?: Knex.Transaction;
}

/** A table of the catalog's schema, in the scope's transaction. */
export const table = (scope: SqlScope, name: string): Knex.QueryBuilder => scope.db.table(name, scope.trx);
/** A table's schema-qualified name for knex's builder and `??` bindings, which quote it (raw SQL text: `db.qualified`). */
export const knexTable = (db: Db, name: string): string => `${db.schema}.${name}`;

export const iso = (value: Date | string): string => (value instanceof Date ? value : new Date(value)).toISOString();
export const isoOrNull = (value: Date | string | null): string | null => (value === null ? null : iso(value));
// pg parses jsonb; a driver that hands back text is handled too.
export const json = <T>(value: unknown): T => (typeof value === 'string' ? (JSON.parse(value) as T) : (value as T));
/** Postgres bigint arrives as text (pg) or a number; prices stay far below 2^53. */
export const int = (value: number | string): number => Number(value);

/** Lists of ids can be long (a pricelist of 10,000 products): keep each statement's bindings bounded. */
const CHUNK = 1000;
export function chunks<T>(list: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += CHUNK) out.push(list.slice(i, i + CHUNK));
  return out;
}

export function groupBy<T, K>(rows: T[], key: (row: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const row of rows) {
    const k = key(row);
    const list = groups.get(k);
    if (list) list.push(row);
    else groups.set(k, [row]);
  }
  return groups;
}

/** The next id of a table's serial column, taken in the transaction. */
export async function nextval(trx: Knex.Transaction, qualifiedTable: string): Promise<number> {
  const res = await trx.raw(`select nextval(pg_get_serial_sequence(?, 'id')) as id`, [qualifiedTable]);
  return Number((res as { rows: Array<{ id: number | string }> }).rows[0]!.id);
}

/**
 * Where the run of a table's URIs `<base>`, `<base>-2` … ends: one query for the stem's URIs (brands,
 * collections and categories are few; no index), instead of a query a suffix tried (decision 100).
 */
export async function uriRunEnd(query: Knex.QueryBuilder, base: string): Promise<number> {
  const rows = (await query.where('uri', base).orWhereRaw(`regexp_replace(uri, '-[0-9]+$', '') = ?`, [base]).select('uri')) as Array<{
    uri: string;
  }>;
  const runs = new SuffixRuns();
  for (const { uri } of rows) runs.note(uri);
  return runs.end(base);
}

/** Whether another row than `exceptId` of the query's table has this URI. */
export async function uriTaken(query: Knex.QueryBuilder, uri: string, exceptId: number | null): Promise<boolean> {
  query.where({ uri });
  if (exceptId !== null) query.whereNot({ id: exceptId });
  return Boolean(await query.first('id'));
}
