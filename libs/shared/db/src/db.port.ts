import type { Knex } from 'knex';

export type { Knex } from 'knex';

/**
 * A service's view of the SQL store: one knex instance (Postgres via pg, or embedded PGlite) and the
 * schema the service owns. The all-in-one shares one PGlite between services, so repositories always
 * name the schema: `db.table('products')` is `knex('<schema>.products')`, and work in a transaction
 * goes through `db.table('products', trx)`.
 */
export interface Db {
  readonly knex: Knex;
  readonly schema: string;
  readonly engine: 'postgres' | 'pglite';
  /** A query builder on `<schema>.<name>`, inside trx when given. */
  table(name: string, trx?: Knex.Transaction): Knex.QueryBuilder;
  /**
   * A table of the schema as raw SQL text names it, each part quoted: `"payment"."attempts"` (the all-in-one's
   * `order` schema is a keyword). Knex's builder and its `??` / `:name:` bindings quote `<schema>.<name>` themselves.
   */
  qualified(name: string): string;
  transaction<T>(fn: (trx: Knex.Transaction) => Promise<T>): Promise<T>;
  /**
   * One statement, for a hot path: its rows. Its parameters positional `?` with an array (no `??`; `?` nowhere
   * else in the text), or named `:name` with an object (a `::` cast is not one; `:` nowhere else before a letter,
   * e.g. in a string literal; each name must be in the object): a text shared with knex's named `raw` bindings,
   * such as the outbox's input (`outboxInputSql`), runs here unchanged. On Postgres a named prepared statement
   * (parsed and planned once per connection) sent on a pooled connection without knex's builder or binding
   * rewrites; on PGlite through `knex.raw`.
   */
  query<R = Record<string, unknown>>(sql: string, bindings: readonly unknown[] | Readonly<Record<string, unknown>>): Promise<R[]>;
  /** Readiness: `select 1`. */
  ping(): Promise<void>;
}

/** A knex migration of one service; runs unchanged on Postgres and PGlite. `schema` is the service's schema. */
export interface Migration {
  name: string;
  up(knex: Knex, schema: string): Promise<void>;
  down?(knex: Knex, schema: string): Promise<void>;
}
