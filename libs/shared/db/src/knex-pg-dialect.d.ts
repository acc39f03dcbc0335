// knex's pg dialect, which `namedStatementsDialect` extends (knex ships no types for its dialects' modules).
declare module 'knex/lib/dialects/postgres/index.js' {
  import { Knex } from 'knex';
  class ClientPg extends Knex.Client {
    _query(connection: unknown, obj: unknown): Promise<unknown>;
  }
  export = ClientPg;
}
