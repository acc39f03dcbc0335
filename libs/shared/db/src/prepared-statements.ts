import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import PgDialect from 'knex/lib/dialects/postgres/index.js';

/**
 * Named prepared statements on Postgres (decision 179): a statement sent with a name is parsed, analysed and
 * planned once per connection (pg keeps the names it prepared on each client and sends only Bind/Execute after),
 * where an unnamed one is all of that at every execution. One policy for knex's statements (the builder,
 * `knex.raw`, inside transactions or not) and `Db.query`'s.
 */
export interface PreparedStatementLimits {
  /** A longer text runs unnamed (a SOAP batch's insert of 1,000 rows is used once and is large in Postgres). */
  maxTextLength: number;
  /** A connection holding this many names runs any further text unnamed: Postgres's and pg's memory stay bounded. */
  perConnection: number;
}

export const DEFAULT_PREPARED_STATEMENT_LIMITS: PreparedStatementLimits = { maxTextLength: 4096, perConnection: 500 };

/** What the naming reads of a pg client: the names its connection prepared (pg's own record). */
interface PgClientStatements {
  connection?: { parsedStatements?: Record<string, string> };
  /** Set by knex while the client runs a transaction. */
  __knexTxId?: unknown;
}

/**
 * Postgres refuses a prepared statement whose result's columns changed since it was prepared (a migration added
 * a column to a table it reads with `*`, or changed a type): SQLSTATE 0A000, "cached plan must not change result
 * type". The same text prepared again (or unnamed) runs.
 */
export function isStalePreparedPlan(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  return e?.code === '0A000' && typeof e.message === 'string' && e.message.includes('cached plan must not change result type');
}

/** Where `StatementNames` tells that a connection holds its most names (a pino logger is one). */
export interface StatementNamesLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

/** The names of one engine's statements: a digest of the text, under a generation that a stale plan moves on. */
export class StatementNames {
  private generation = 0;
  private readonly names = new Map<string, string>();
  /** The connections told of as full (once each). */
  private readonly full = new WeakSet<object>();

  constructor(
    private readonly limits: PreparedStatementLimits = DEFAULT_PREPARED_STATEMENT_LIMITS,
    private readonly log?: StatementNamesLog,
  ) {}

  /** The name to send `text` under on `client` (a pg client), or undefined: run it unnamed. */
  nameFor(client: object, text: string): string | undefined {
    if (text.length > this.limits.maxTextLength) return undefined;
    const name = this.nameOf(text);
    const prepared = (client as PgClientStatements).connection?.parsedStatements;
    if (!prepared || prepared[name] !== undefined) return name;
    // A name new to the connection: counted only then (rare once the connection is warm).
    const held = Object.keys(prepared);
    if (held.length < this.limits.perConnection) return name;
    if (!this.full.has(client)) {
      this.full.add(client);
      // Once a connection: its further new texts run unnamed (parsed and planned at every run) until it closes.
      const older = held.filter((n) => !n.startsWith(this.prefix())).length;
      this.log?.warn(
        { preparedStatements: held.length, ofOlderGenerations: older, perConnection: this.limits.perConnection },
        `database: a connection holds ${held.length} prepared statements, the most it may (${older} of them named before a stale plan, ` +
          'unused since): its new statements run unnamed until it closes (decision 179)',
      );
    }
    return undefined;
  }

  /**
   * A statement named `name` met a stale plan: every text gets a name of the next generation, so no connection
   * of the engine runs an old plan again (they stay prepared on their connections, counted in the bound, until
   * the connection closes). Once per generation: the statements that met it at the same time move it once.
   */
  stale(name: string): void {
    if (!name.startsWith(this.prefix())) return;
    this.generation++;
    this.names.clear();
  }

  private prefix(): string {
    return `s${this.generation.toString(36)}_`;
  }

  private nameOf(text: string): string {
    let name = this.names.get(text);
    if (name === undefined) {
      name = `${this.prefix()}${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
      // Statement shapes are few (fixed texts and a handful of row counts); bounded anyway.
      if (this.names.size >= 5000) this.names.clear();
      this.names.set(text, name);
    }
    return name;
  }
}

interface KnexQueryObject {
  sql: string;
  bindings?: readonly unknown[];
  options?: Record<string, unknown>;
}

/**
 * knex's pg dialect whose parameterized statements go out named (knex passes a query's `options` into pg's query
 * config). A subclass, not a patched instance: knex makes each transaction's client from the dialect's prototype.
 * A statement that meets a stale plan moves the names on (`StatementNames.stale`) and, outside a transaction,
 * runs once more under its new name; inside one the transaction has failed: `Db.transaction` runs it again.
 */
export function namedStatementsDialect(names: StatementNames): typeof Knex.Client {
  return class NamedStatementsPg extends PgDialect {
    override async _query(connection: PgClientStatements, obj: KnexQueryObject): Promise<unknown> {
      const nameOf = () => (obj.bindings?.length ? names.nameFor(connection, obj.sql) : undefined);
      const named = (name: string | undefined) => (name === undefined ? obj : { ...obj, options: { ...obj.options, name } });
      const name = nameOf();
      if (name === undefined) return super._query(connection, obj);
      try {
        return await super._query(connection, named(name));
      } catch (error) {
        if (!isStalePreparedPlan(error)) throw error;
        names.stale(name);
        if (connection.__knexTxId !== undefined) throw error;
        return super._query(connection, named(nameOf()));
      }
    }
  };
}
