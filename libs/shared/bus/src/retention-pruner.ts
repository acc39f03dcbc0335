import { Counter, Gauge, Registry } from 'prom-client';
import type { Db, Knex } from '@commerce/shared-db';
import type { Logger } from '@commerce/shared-logging';

/** A table whose old rows the pruner deletes, a batch at a time. */
export interface RetainedTable {
  /** The table, in the service's schema. */
  table: string;
  /** Its primary key: a batch is deleted by key. */
  key: string[];
  /** When a row was written (database time); should be indexed. */
  writtenAt: string;
  /** Rows older than this go. */
  retentionMs: number;
  /**
   * The rows are written in the transaction of outbox events: keep every row written no earlier than
   * the oldest unsent outbox row (one transaction stamps both with the same `now()`), so that nothing
   * goes before its events are published, however long Kafka is down.
   */
  publishedThroughOutbox?: boolean;
  /**
   * The rows refer to an outbox row (this column holds its `id`) that holds what they stand for (the
   * backoffice's received entities, decision 73): an outbox row one of them refers to is kept, however
   * long ago it was sent, until the row referring to it is pruned (by its own retention). Index the column.
   */
  refersToOutbox?: string;
}

export interface RetentionPrunerOptions {
  /** How long sent outbox rows are kept. Unsent rows are never deleted. */
  outboxRetentionMs: number;
  /** How long consumer dedupe records are kept: longer than any redelivery can come (Kafka's retention). */
  processedEventsRetentionMs: number;
  /** Period between prunes. */
  intervalMs: number;
  /** Rows per delete statement. */
  batchSize: number;
  /** The service's own tables to prune besides the outbox and processed_events. */
  tables?: RetainedTable[];
  logger?: Logger;
  /** Where the backlog gauges and the pruned-rows counter go (a fresh registry when omitted). */
  registry?: Registry;
  /** Delay before the first prune (default: the interval, at most a minute), so that a restart does not postpone it. */
  firstRunDelayMs?: number;
}

export interface RetentionPruner {
  readonly registry: Registry;
  /** Prunes every table now (one run at a time); resolves with the rows deleted per table. */
  pruneNow(): Promise<Record<string, number>>;
  /** Stops the schedule and waits for a run in progress (ends after its current batch). */
  stop(): Promise<void>;
}

const SCRAPE_TIMEOUT_MS = 2000;

/**
 * Starts the periodic, batched prune of a service's outbox (sent rows only), its consumer dedupe
 * records, and any table given in `tables`, and reports the outbox backlog (unsent rows, age of the
 * oldest) at every scrape of `registry`. Cutoffs are taken in database time, as the rows were stamped.
 */
export function startRetentionPruner(db: Db, options: RetentionPrunerOptions): RetentionPruner {
  const { logger, batchSize, intervalMs } = options;
  const registry = options.registry ?? new Registry();
  const metrics = retentionMetrics(registry);
  metrics.outboxes.set(db.schema, db);
  const tables: RetainedTable[] = [
    { table: 'outbox', key: ['seq'], writtenAt: 'sent_at', retentionMs: options.outboxRetentionMs },
    {
      table: 'processed_events',
      key: ['consumer', 'event_id'],
      writtenAt: 'processed_at',
      retentionMs: options.processedEventsRetentionMs,
    },
    ...(options.tables ?? []),
  ];
  let chain: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let failing = false;

  async function deleteBatch(t: RetainedTable): Promise<number> {
    const cutoff = db.knex.raw('now() - make_interval(secs => ?)', [t.retentionMs / 1000]);
    // whereNotNull: an unsent outbox row (sent_at null) is never a candidate, whatever its age.
    const candidates = db.table(t.table).select(t.key).whereNotNull(t.writtenAt).where(t.writtenAt, '<', cutoff);
    if (t.publishedThroughOutbox) {
      candidates.where(
        t.writtenAt,
        '<',
        db.knex.raw(`coalesce((select min(created_at) from ??.outbox where sent_at is null), 'infinity')`, [db.schema]),
      );
    }
    if (t.table === 'outbox') {
      for (const { table, refersToOutbox } of tables) {
        if (refersToOutbox)
          candidates.whereRaw('not exists (select 1 from ??.?? as r where r.?? = ??.outbox.id)', [db.schema, table, refersToOutbox, db.schema]);
      }
    }
    candidates.orderBy(t.writtenAt).limit(batchSize);
    const [first] = t.key;
    if (first === undefined) throw new Error(`retention: ${t.table} has no key`);
    const key = t.key.length === 1 ? first : t.key;
    // Counted through `returning`: knex-pglite answers `del()` with its raw result, not a row count.
    const deleted = await db
      .table(t.table)
      .whereIn(key as string, candidates as Knex.QueryBuilder)
      .del()
      .returning(first);
    return deleted.length;
  }

  async function pruneTable(t: RetainedTable): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await deleteBatch(t);
      total += deleted;
      if (deleted > 0) metrics.pruned.inc({ schema: db.schema, table: t.table }, deleted);
      if (deleted < batchSize || stopped) return total;
    }
  }

  async function pruneAll(): Promise<Record<string, number>> {
    const result: Record<string, number> = {};
    for (const t of tables) {
      if (stopped) break;
      result[t.table] = await pruneTable(t);
    }
    return result;
  }

  function pruneNow(): Promise<Record<string, number>> {
    const run = chain.then(pruneAll);
    chain = run.catch(() => undefined);
    return run.then(
      (result) => {
        if (failing) logger?.info({ schema: db.schema }, 'retention: pruning again');
        failing = false;
        const total = Object.values(result).reduce((a, b) => a + b, 0);
        if (total > 0) logger?.info({ schema: db.schema, pruned: result }, 'retention: old rows pruned');
        return result;
      },
      (error: unknown) => {
        // Once per outage, not once per tick.
        if (!failing) logger?.error({ err: error, schema: db.schema }, 'retention: prune failed, retrying at the next interval');
        failing = true;
        throw error;
      },
    );
  }

  function schedule(delayMs: number): void {
    if (stopped) return;
    timer = setTimeout(() => {
      void pruneNow()
        .catch(() => undefined)
        .finally(() => schedule(intervalMs));
    }, delayMs);
    timer.unref?.();
  }
  schedule(options.firstRunDelayMs ?? Math.min(intervalMs, 60_000));

  return {
    registry,
    pruneNow,
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      await chain;
      if (metrics.outboxes.get(db.schema) === db) {
        metrics.outboxes.delete(db.schema);
        metrics.pending.remove({ schema: db.schema });
        metrics.oldestPendingAge.remove({ schema: db.schema });
      }
    },
  };
}

interface RetentionMetrics {
  pruned: Counter<'schema' | 'table'>;
  pending: Gauge<'schema'>;
  oldestPendingAge: Gauge<'schema'>;
  /** The outboxes reported at a scrape of this registry, by schema (the all-in-one has several). */
  outboxes: Map<string, Db>;
}

// One set of metrics per registry, however many pruners share it.
const metricsByRegistry = new WeakMap<Registry, RetentionMetrics>();

function retentionMetrics(registry: Registry): RetentionMetrics {
  const existing = metricsByRegistry.get(registry);
  if (existing) return existing;
  const outboxes = new Map<string, Db>();
  // Both gauges are filled by one query per outbox and scrape.
  let scrape: { at: number; done: Promise<void> } | undefined;
  const collectBacklog = async (): Promise<void> => {
    if (!scrape || Date.now() - scrape.at > 1000) scrape = { at: Date.now(), done: readBacklogs() };
    await scrape.done;
  };
  const pending: Gauge<'schema'> = new Gauge({
    name: 'outbox_pending_events',
    help: 'Outbox rows not yet published (the backlog), by schema',
    labelNames: ['schema'] as const,
    registers: [registry],
    collect: collectBacklog,
  });
  const oldestPendingAge: Gauge<'schema'> = new Gauge({
    name: 'outbox_oldest_pending_age_seconds',
    help: 'Age of the oldest unpublished outbox row (0 when none), by schema',
    labelNames: ['schema'] as const,
    registers: [registry],
    collect: collectBacklog,
  });
  const pruned = new Counter({
    name: 'retention_pruned_rows_total',
    help: 'Rows deleted by the retention pruner, by schema and table',
    labelNames: ['schema', 'table'] as const,
    registers: [registry],
  });

  async function readBacklogs(): Promise<void> {
    await Promise.all(
      [...outboxes].map(async ([schema, db]) => {
        try {
          const backlog = await withTimeout(readBacklog(db), SCRAPE_TIMEOUT_MS);
          pending.set({ schema }, backlog.pending);
          oldestPendingAge.set({ schema }, backlog.oldestAgeSeconds);
        } catch {
          // No sample rather than a stale one; readiness already reports a database that does not answer.
          pending.remove({ schema });
          oldestPendingAge.remove({ schema });
        }
      }),
    );
  }

  const metrics = { pruned, pending, oldestPendingAge, outboxes };
  metricsByRegistry.set(registry, metrics);
  return metrics;
}

/** The backlog: read through the partial index of pending rows, so it costs what the backlog holds. */
async function readBacklog(db: Db): Promise<{ pending: number; oldestAgeSeconds: number }> {
  const [row] = await db
    .table('outbox')
    .whereNull('sent_at')
    .select(db.knex.raw('count(*) as pending'), db.knex.raw('coalesce(extract(epoch from now() - min(created_at)), 0) as age'));
  return { pending: Number(row?.pending ?? 0), oldestAgeSeconds: Math.max(0, Number(row?.age ?? 0)) };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
