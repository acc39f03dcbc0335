import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Meilisearch, type EnqueuedTaskPromise, type Settings, type Task } from 'meilisearch';
import {
  EVERY_MARKET,
  SearchUnavailableError,
  type FacetCounts,
  type FacetField,
  type SearchDoc,
  type SearchFilters,
  type SearchIndex,
  type SearchQuery,
  type SearchResult,
  type SearchScope,
  type SortKey,
} from '@commerce/catalog-core';
import { currentDeadline, type Logger } from '@commerce/shared-logging';
import { MeiliReads, type MeiliSearchParams } from './meilisearch-reads';

/**
 * `infra/meilisearch/settings.json`, from the working directory, like the store configuration: the repo
 * root when run from source, `/app` in the image (a bundle's own location says nothing about infra/).
 */
export const MEILI_SETTINGS_PATH = resolve('infra/meilisearch/settings.json');

/**
 * A search waits this long at most, and no longer than its request's deadline (decision 132): a Meilisearch that
 * stalls fails the search (503 at the edge), not the request's whole wait. Writes keep the client's 30 s.
 */
export const SEARCH_TIMEOUT_MS = 2000;
const searchTimeoutMs = (): number => {
  const deadline = currentDeadline();
  return Math.max(1, Math.min(SEARCH_TIMEOUT_MS, deadline === undefined ? SEARCH_TIMEOUT_MS : deadline - Date.now()));
};

export function loadMeiliSettings(path = MEILI_SETTINGS_PATH): Record<string, unknown> {
  return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
}

export interface MeiliOptions {
  indexName?: string;
  apiKey?: string;
  logger?: Logger;
  settings?: Record<string, unknown>;
  /** How long to wait for one indexing task (default 60 s). */
  taskTimeoutMs?: number;
  /**
   * Create the index when missing and apply the settings at open (default true). The reindex command
   * opens the live index without, and gives the settings to the index it swaps in instead.
   */
  configure?: boolean;
  /**
   * How long `facetTotals` are reused (default 5 s). Writes through this instance clear them at once;
   * the bound is for writes by other processes (another replica's indexer, the reindex command's swap).
   */
  facetTotalsTtlMs?: number;
}

/**
 * Meilisearch through the official `meilisearch` client (ESM; decision 13), but for the searches, which go
 * through a kept undici pool (`MeiliReads`). Every write waits for its task, so a resolved `upsert` means
 * searchable, as the port promises.
 */
export class MeiliSearchIndex implements SearchIndex {
  readonly kind = 'meilisearch' as const;
  /** The index uid this instance reads and writes. */
  readonly indexName: string;
  private readonly totals = new Map<string, { at: number; counts: Promise<FacetCounts> }>();

  private constructor(
    private readonly client: Meilisearch,
    /** Searches go through this pool (shared with a staging index; closed by the instance `open` made). */
    private readonly reads: MeiliReads,
    private readonly url: string,
    private readonly options: MeiliOptions,
    indexName: string,
    /** Whether `close` ends `reads`: the instance `open` made does, a staging index sharing its pool does not. */
    private readonly ownsReads = false,
  ) {
    this.indexName = indexName;
  }

  /**
   * Connects, creates the index when missing and applies the settings (unless `configure: false`);
   * throws `SearchUnavailableError` when Meilisearch does not answer.
   */
  static async open(url: string, options: MeiliOptions = {}): Promise<MeiliSearchIndex> {
    const client = new Meilisearch({
      host: url.replace(/\/+$/, ''),
      ...(options.apiKey ? { apiKey: options.apiKey } : {}),
      timeout: 30_000,
      defaultWaitOptions: { timeout: options.taskTimeoutMs ?? 60_000, interval: 25 },
    });
    const meili = new MeiliSearchIndex(client, new MeiliReads(url, options.apiKey), url, options, options.indexName ?? 'products', true);
    try {
      await meili.ping();
    } catch (error) {
      await meili.close();
      throw new SearchUnavailableError(`search: cannot reach Meilisearch at ${url} (${describe(error)})`, { cause: error });
    }
    if (options.configure !== false) await meili.prepare();
    options.logger?.info({ search: url, index: meili.indexName }, 'search: Meilisearch index ready');
    return meili;
  }

  /** Creates the index when missing and applies the settings (`options.settings` or `infra/meilisearch/settings.json`). */
  private async prepare(): Promise<void> {
    const created = await this.wait(this.client.createIndex(this.indexName, { primaryKey: 'id' }), true);
    if (created.status === 'failed' && created.error?.code !== 'index_already_exists')
      throw new Error(`search: cannot create index ${this.indexName}: ${created.error?.message}`);
    await this.wait(this.client.index(this.indexName).updateSettings((this.options.settings ?? loadMeiliSettings()) as Settings));
  }

  async ping(): Promise<void> {
    const health = await this.client.health();
    if (health.status !== 'available') throw new Error(`health is ${health.status}`);
  }

  async upsert(docs: SearchDoc[]): Promise<void> {
    if (docs.length === 0) return;
    await this.wait(this.client.index<SearchDoc>(this.indexName).addDocuments(docs, { primaryKey: 'id' }));
    this.totals.clear();
  }

  async remove(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.wait(this.client.index(this.indexName).deleteDocuments(ids));
    this.totals.clear();
  }

  async clear(): Promise<void> {
    await this.wait(this.client.index(this.indexName).deleteAllDocuments());
    this.totals.clear();
  }

  async search(query: SearchQuery): Promise<SearchResult> {
    const filter = filterExpression(query.filters, query.scope);
    if (filter === null) {
      // A filter on an empty list matches nothing; said here rather than in Meilisearch's filter syntax.
      return { ids: [], total: 0, ...(query.facets?.length ? { facets: Object.fromEntries(query.facets.map((k) => [k, {}])) } : {}) };
    }
    // page/hitsPerPage (not offset/limit) so that totalHits is exact; an unaligned offset reads from page 1.
    const aligned = query.offset % query.limit === 0;
    const hitsPerPage = aligned ? query.limit : query.offset + query.limit;
    const page = aligned ? query.offset / query.limit + 1 : 1;
    const params: MeiliSearchParams = {
      q: query.text ?? '',
      matchingStrategy: 'all',
      attributesToRetrieve: ['id'],
      page,
      hitsPerPage,
      ...(filter ? { filter } : {}),
      ...(query.sort && query.sort.length > 0 ? { sort: query.sort.map(sortExpression) } : {}),
      ...(query.facets && query.facets.length > 0 ? { facets: query.facets } : {}),
    };
    const res = await this.reads.search(this.indexName, params, searchTimeoutMs());
    const ids = res.hits.map((h) => String(h.id));
    const result: SearchResult = { ids: aligned ? ids : ids.slice(query.offset), total: res.totalHits ?? ids.length };
    if (query.facets && query.facets.length > 0) {
      result.facets = Object.fromEntries(query.facets.map((facet) => [facet, res.facetDistribution?.[facet] ?? {}]));
    }
    return result;
  }

  async facetTotals(scope: SearchScope, facets: FacetField[]): Promise<FacetCounts> {
    const key = JSON.stringify([scope.market ?? null, scope.pricelist ?? null, [...facets].sort()]);
    const now = Date.now();
    const cached = this.totals.get(key);
    if (cached && now - cached.at < (this.options.facetTotalsTtlMs ?? 5_000)) return cached.counts;
    const filter = filterExpression(undefined, scope);
    const counts = this.reads
      .search(this.indexName, { q: '', limit: 0, facets, ...(filter ? { filter } : {}) }, searchTimeoutMs())
      .then((res) => Object.fromEntries(facets.map((facet) => [facet, res.facetDistribution?.[facet] ?? {}])) as FacetCounts);
    // Concurrent requests share one call; a failed one is not kept.
    this.totals.set(key, { at: now, counts });
    counts.catch(() => this.totals.delete(key));
    return counts;
  }

  /** The index's settings as Meilisearch holds them; undefined when the index does not exist. */
  async settings(): Promise<Record<string, unknown> | undefined> {
    try {
      return (await this.client.index(this.indexName).getSettings()) as Record<string, unknown>;
    } catch (error) {
      if ((error as { cause?: { code?: unknown } }).cause?.code === 'index_not_found') return undefined;
      throw error;
    }
  }

  /**
   * A new, empty index beside this one (`<name>_tmp_<timestamp>`) with the settings applied, to be filled
   * and then swapped in with {@link swapIn}: the rebuild the reindex command does without a window in
   * which searches on this index fail or see a partial catalogue.
   */
  async createStaging(settings?: Record<string, unknown>): Promise<MeiliSearchIndex> {
    const name = `${this.indexName}_tmp_${Date.now()}`;
    const staging = new MeiliSearchIndex(
      this.client,
      this.reads,
      this.url,
      { ...this.options, ...(settings ? { settings } : {}), configure: true },
      name,
    );
    await staging.prepare();
    return staging;
  }

  /**
   * Atomically makes `staging`'s documents and settings this index's (Meilisearch's index swap), then
   * deletes the staging uid, which holds the previous contents after the swap. Searches on this index
   * answer throughout: before the swap task from the old contents, after it from the new ones.
   */
  async swapIn(staging: MeiliSearchIndex): Promise<void> {
    const exists = await this.client
      .getRawIndex(this.indexName)
      .then(() => true)
      .catch((error: unknown) => {
        if ((error as { cause?: { code?: unknown } }).cause?.code === 'index_not_found') return false;
        throw error;
      });
    if (exists) {
      await this.wait(this.client.swapIndexes([{ indexes: [this.indexName, staging.indexName], rename: false }]));
      await staging.deleteIndex();
    } else {
      // Nothing to swap with: the staging index simply takes the name.
      await this.wait(this.client.swapIndexes([{ indexes: [staging.indexName, this.indexName], rename: true }]));
    }
  }

  /**
   * Rebuilds this index without a window in which searches on it fail or see part of the documents: a
   * staging index gets `settings` (default `infra/meilisearch/settings.json`), `fill` writes every
   * document into it, then it is swapped in and the previous contents deleted. If `fill` or the swap
   * fails, the staging index is deleted and this one is left as it was.
   */
  async rebuild<T>(
    fill: (staging: MeiliSearchIndex) => Promise<T>,
    options: { settings?: Record<string, unknown>; onStep?: (step: string) => void } = {},
  ): Promise<T> {
    const staging = await this.createStaging(options.settings);
    options.onStep?.(`staging ${staging.indexName}`);
    try {
      const result = await fill(staging);
      options.onStep?.('swap');
      await this.swapIn(staging);
      options.onStep?.('done');
      return result;
    } catch (error) {
      await staging.deleteIndex().catch(() => undefined);
      throw error;
    }
  }

  /** Deletes the whole index (tests, a failed rebuild's staging index). */
  async deleteIndex(): Promise<void> {
    await this.wait(this.client.deleteIndex(this.indexName), true);
  }

  async close(): Promise<void> {
    // The client holds no connections of its own (it uses the global fetch); the searches' pool does.
    if (this.ownsReads) await this.reads.close();
  }

  /** Waits for the task; a failed or canceled one throws unless `allowFailure`. */
  private async wait(enqueued: EnqueuedTaskPromise, allowFailure = false): Promise<Task> {
    const task = await enqueued.waitTask();
    if (task.status !== 'succeeded' && !allowFailure)
      throw new Error(
        `search: Meilisearch task ${task.uid} (${task.type} on ${task.indexUid ?? '-'}) ${task.status}: ${task.error?.message ?? ''}`,
      );
    return task;
  }
}

const quote = (value: string): string => JSON.stringify(value);

/** `prices.<pricelist>` for a price (`prices` is sortable, so each of its keys is). */
export const sortExpression = (key: SortKey): string =>
  key.field === 'price' ? `prices.${key.pricelist}:${key.order}` : `${key.field}:${key.order}`;

/**
 * The scope and the filters as one Meilisearch filter: fields combine with AND, values of one field with
 * OR (`brand IN ["1","2"]`). Undefined when nothing restricts; null when an empty list matches nothing.
 */
export function filterExpression(f: SearchFilters | undefined, scope?: SearchScope): string | undefined | null {
  const parts: string[] = [];
  const list = (values: Array<string | number>) => `[${values.map((v) => (typeof v === 'number' ? String(v) : quote(v))).join(', ')}]`;
  let empty = false;
  const anyOf = (field: string, values: Array<string | number> | undefined) => {
    if (values === undefined) return;
    if (values.length === 0) empty = true;
    else parts.push(`${field} IN ${list(values)}`);
  };
  if (scope?.market !== undefined) parts.push(`markets IN ${list([EVERY_MARKET, scope.market])}`);
  if (scope?.pricelist !== undefined) parts.push(`pricelists = ${quote(scope.pricelist)}`);
  if (f) {
    anyOf('id', f.ids);
    anyOf('platformProduct', f.platformProducts);
    anyOf('brand', f.brands);
    anyOf('collection', f.collections);
    anyOf('categoryTree', f.categories);
    anyOf('swatchDesc', f.swatchDescs);
    anyOf('itemNames', f.itemNames);
    anyOf('availableItemNames', f.availableItemNames);
    if (f.inStock !== undefined) parts.push(`inStock = ${f.inStock}`);
    if (f.uri) {
      const either = [
        ...(f.uri.ids.length > 0 ? [`id IN ${list(f.uri.ids)}`] : []),
        ...(f.uri.categories.length > 0 ? [`categoryTree IN ${list(f.uri.categories)}`] : []),
      ];
      if (either.length === 0) empty = true;
      else parts.push(either.length === 1 ? either[0]! : `(${either.join(' OR ')})`);
    }
    for (const [field, values] of Object.entries(f.extra ?? {})) anyOf(field, values);
  }
  if (empty) return null;
  return parts.length > 0 ? parts.join(' AND ') : undefined;
}

/** One line for an unreachable engine: the first system error code down the `cause` chain, else the message. */
function describe(error: unknown): string {
  const seen = new Set<unknown>();
  for (let e = error as { code?: unknown; cause?: unknown; errors?: unknown[] } | undefined; e && !seen.has(e);) {
    seen.add(e);
    if (typeof e.code === 'string' && /^E[A-Z]+$/.test(e.code)) return e.code;
    const inner = Array.isArray(e.errors) ? e.errors[0] : undefined;
    e = (e.cause ?? inner) as typeof e;
  }
  const e = error as { message?: unknown };
  return (typeof e?.message === 'string' ? e.message : String(error)).split('\n')[0]!;
}
