import type { Knex } from 'knex';
import type { Db, Migration } from './db.port';

/** Knex's bookkeeping tables in each service's schema: `<schema>.migrations` and `<schema>.migrations_lock`. */
export const MIGRATIONS_TABLE = 'migrations';

export interface MigrateOptions {
  /** How long to wait for another process that holds the migration lock (default 60 s). */
  lockTimeoutMs?: number;
}

/**
 * Creates the service's schema when missing, then runs its pending migrations in list order with
 * knex's own migrator. Each migration runs in a transaction and receives that transaction as `knex`:
 * use it (never an outer knex), PGlite has a single connection. Two processes starting at once on
 * Postgres are serialised by knex's migration lock; the one that finds it taken waits and retries.
 */
export async function migrate(db: Db, migrations: Migration[], options: MigrateOptions = {}): Promise<void> {
  assertUniqueNames(migrations);
  const deadline = Date.now() + (options.lockTimeoutMs ?? 60_000);
  const config: Knex.MigratorConfig = {
    migrationSource: sourceOf(db.schema, migrations),
    schemaName: db.schema,
    tableName: MIGRATIONS_TABLE,
  };
  for (let attempt = 1; ; attempt++) {
    try {
      await createSchema(db);
      await db.knex.migrate.latest(config);
      return;
    } catch (error) {
      const retry = isLockHeld(error) ? Date.now() < deadline : isCreationRace(error) && attempt < 5;
      if (!retry) throw error;
      await sleep(Math.min(50 * attempt, 500));
    }
  }
}

function sourceOf(schema: string, migrations: Migration[]): Knex.MigrationSource<Migration> {
  return {
    getMigrations: async () => migrations,
    getMigrationName: (m) => m.name,
    getMigration: async (m) => ({
      up: (knex: Knex) => m.up(knex, schema),
      down: (knex: Knex) => (m.down ? m.down(knex, schema) : Promise.reject(new Error(`migration ${m.name} has no down`))),
    }),
  };
}

async function createSchema(db: Db): Promise<void> {
  const exists = await db.knex.raw('select 1 from information_schema.schemata where schema_name = ?', [db.schema]);
  if (exists.rows.length === 0) await db.knex.raw('create schema if not exists ??', [db.schema]);
}

/** Another process is migrating this schema now. */
const isLockHeld = (error: unknown): boolean => (error as { name?: string })?.name === 'MigrationLocked';

/**
 * Two processes created the schema or knex's tables at once (`if not exists` still races on Postgres's
 * catalog unique indexes). Retried a few times only, so a migration that itself violates a unique
 * constraint still fails fast.
 */
function isCreationRace(error: unknown): boolean {
  const code = (error as { code?: string })?.code;
  // 23505 unique_violation, 42P07 duplicate_table, 42P06 duplicate_schema, 42710 duplicate_object (the
  // table's row type: `type "migrations" already exists` when two create knex's table at once)
  return code === '23505' || code === '42P07' || code === '42P06' || code === '42710';
}

function assertUniqueNames(migrations: Migration[]): void {
  const seen = new Set<string>();
  for (const m of migrations) {
    if (seen.has(m.name)) throw new Error(`migrate: duplicate migration name ${m.name}`);
    seen.add(m.name);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
