import { Counter, Registry } from 'prom-client';
import { z } from 'zod';
import { normaliseSearchQuery, type SearchQueryEvent, type SearchQueryLog } from '@commerce/catalog-core';
import type { RetainedTable } from '@commerce/shared-bus';
import type { Db, Migration } from '@commerce/shared-db';
import type { Logger } from '@commerce/shared-logging';

/**
 * The counts of what shoppers search for (issue 26, docs/search.md "What shoppers search for"): Prometheus
 * counters for the rates, and a table of the day's searches by normalised query, market and language,
 * written every few seconds from memory (a search costs a map update, never a write) and bounded twice:
 * each day keeps its `maxRowsPerDay` most searched and `maxRowsPerDay` most often empty queries, and the
 * retention pruner deletes days older than `SEARCH_QUERIES_RETENTION_DAYS`.
 */
export const searchQueriesMigration: Migration = {
  name: 'catalog_005_search_queries',
  async up(knex, schema) {
    await knex.schema.withSchema(schema).createTable('search_queries', (t) => {
      t.date('day').notNullable();
      t.text('query').notNullable();
      t.text('market').notNullable();
      t.text('language').notNullable();
      t.integer('searches').notNullable();
      t.integer('zero_results').notNullable();
      t.primary(['day', 'query', 'market', 'language']);
    });
  },
};

/** The retention pruner's entry for the table: whole days older than `retentionMs` go. */
export const searchQueriesRetention = (retentionMs: number): RetainedTable => ({
  table: 'search_queries',
  key: ['day', 'query', 'market', 'language'],
  writtenAt: 'day',
  retentionMs,
});

export interface SearchQueryRow {
  query: string;
  searches: number;
  zeroResults: number;
}

export interface SearchQueryListing {
  /** Inclusive UTC days, `YYYY-MM-DD`. */
  from: string;
  to: string;
  kind: 'top' | 'zero';
  queries: SearchQueryRow[];
}

export interface ListOptions {
  /** Days back from today, today included (default 7). */
  days?: number;
  /** `top`: most searched; `zero`: most often found nothing. */
  kind?: 'top' | 'zero';
  limit?: number;
  market?: string;
  language?: string;
}

/** A listing's options as the internal route's query and `npm run search:queries`' options give them (strings or numbers). */
export const ListOptionsSchema = z.object({
  days: z.coerce.number().int().min(1).max(366).optional(),
  kind: z.enum(['top', 'zero']).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
  market: z.string().optional(),
  language: z.string().optional(),
});

export interface SearchQueryStatsOptions {
  registry?: Registry;
  logger?: Logger;
  /** How often the counts in memory are written (default 10 s). */
  flushMs?: number;
  /** Distinct (query, market, language) held in memory between two writes; more are counted in the metrics only. */
  maxPending?: number;
  /** Rows a day keeps of each list (most searched, most often empty); default 1000. */
  maxRowsPerDay?: number;
  now?: () => Date;
}

interface Pending {
  day: string;
  query: string;
  market: string;
  language: string;
  searches: number;
  zeroResults: number;
}

const dayOf = (date: Date) => date.toISOString().slice(0, 10);

export class SearchQueryStats implements SearchQueryLog {
  readonly registry: Registry;
  private pending = new Map<string, Pending>();
  private readonly searches: Counter<'market' | 'language'>;
  private readonly zero: Counter<'market' | 'language'>;
  private readonly dropped: Counter;
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private readonly now: () => Date;

  constructor(
    private readonly db: Db,
    private readonly options: SearchQueryStatsOptions = {},
  ) {
    this.registry = options.registry ?? new Registry();
    this.now = options.now ?? (() => new Date());
    this.searches = new Counter({
      name: 'catalog_searches_total',
      help: 'Text searches of the product listing, by market and language',
      labelNames: ['market', 'language'] as const,
      registers: [this.registry],
    });
    this.zero = new Counter({
      name: 'catalog_zero_result_searches_total',
      help: 'Text searches of the product listing that found no product, by market and language',
      labelNames: ['market', 'language'] as const,
      registers: [this.registry],
    });
    this.dropped = new Counter({
      name: 'catalog_search_queries_unrecorded_total',
      help: 'Searches counted in the metrics but not in the search_queries table (too many distinct queries between two writes)',
      registers: [this.registry],
    });
  }

  record(event: SearchQueryEvent): void {
    const query = normaliseSearchQuery(event.text);
    if (query === '') return;
    const labels = { market: event.market, language: event.language };
    this.searches.inc(labels);
    if (event.found === 0) this.zero.inc(labels);
    const day = dayOf(this.now());
    const key = JSON.stringify([day, query, event.market, event.language]);
    let row = this.pending.get(key);
    if (!row) {
      if (this.pending.size >= (this.options.maxPending ?? 10_000)) {
        this.dropped.inc();
        return;
      }
      row = { day, query, market: event.market, language: event.language, searches: 0, zeroResults: 0 };
      this.pending.set(key, row);
    }
    row.searches++;
    if (event.found === 0) row.zeroResults++;
  }

  /** Writes the counts held in memory every `flushMs`. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.flush().catch(() => undefined), this.options.flushMs ?? 10_000);
    this.timer.unref();
  }

  /** Stops the schedule and writes what is held. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush().catch(() => undefined);
  }

  /** Writes the counts held in memory (adding to the day's rows) and trims the days written to their bound. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.write());
    return this.flushing;
  }

  private async write(): Promise<void> {
    if (this.pending.size === 0) return;
    const rows = [...this.pending.values()];
    this.pending = new Map();
    try {
      for (let i = 0; i < rows.length; i += 500) {
        await this.db
          .table('search_queries')
          .insert(
            rows.slice(i, i + 500).map((r) => ({
              day: r.day,
              query: r.query,
              market: r.market,
              language: r.language,
              searches: r.searches,
              zero_results: r.zeroResults,
            })),
          )
          .onConflict(['day', 'query', 'market', 'language'])
          .merge({
            searches: this.db.knex.raw('search_queries.searches + excluded.searches'),
            zero_results: this.db.knex.raw('search_queries.zero_results + excluded.zero_results'),
          });
      }
      for (const day of new Set(rows.map((r) => r.day))) await this.trim(day);
    } catch (error) {
      this.options.logger?.warn({ err: error, rows: rows.length }, 'catalog: search query counts not written; counted in the metrics only');
      throw error;
    }
  }

  /** Keeps a day's `maxRowsPerDay` most searched and most often empty queries, deleting the rest. */
  private async trim(day: string): Promise<void> {
    const max = this.options.maxRowsPerDay ?? 1000;
    const [counted] = (await this.db.table('search_queries').where({ day }).count({ n: '*' })) as Array<{ n: number | string }>;
    if (Number(counted?.n ?? 0) <= max) return;
    const s = this.db.schema;
    await this.db.knex.raw(
      `delete from ??.search_queries where day = ? and (query, market, language) not in (
         select query, market, language from ??.search_queries where day = ? order by searches desc, query limit ?)
       and (query, market, language) not in (
         select query, market, language from ??.search_queries where day = ? and zero_results > 0 order by zero_results desc, query limit ?)`,
      [s, day, s, day, max, s, day, max],
    );
  }

  /** The most searched (or most often empty) queries of the last days, summed over the days (and markets and languages unless named). */
  async list(options: ListOptions = {}): Promise<SearchQueryListing> {
    const days = options.days ?? 7;
    const kind = options.kind ?? 'top';
    const to = dayOf(this.now());
    const from = dayOf(new Date(this.now().getTime() - (days - 1) * 86_400_000));
    const q = this.db
      .table('search_queries')
      .select('query')
      .sum({ searches: 'searches', zero_results: 'zero_results' })
      .whereBetween('day', [from, to])
      .groupBy('query');
    if (options.market !== undefined) q.where('market', options.market);
    if (options.language !== undefined) q.where('language', options.language);
    if (kind === 'zero')
      q.having(this.db.knex.raw('sum(zero_results)'), '>', 0).orderBy([{ column: 'zero_results', order: 'desc' }, 'query']);
    else q.orderBy([{ column: 'searches', order: 'desc' }, 'query']);
    const rows = (await q.limit(options.limit ?? 50)) as Array<{ query: string; searches: number | string; zero_results: number | string }>;
    return {
      from,
      to,
      kind,
      queries: rows.map((r) => ({ query: r.query, searches: Number(r.searches), zeroResults: Number(r.zero_results) })),
    };
  }
}
