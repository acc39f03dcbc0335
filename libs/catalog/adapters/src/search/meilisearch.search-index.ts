import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Agent, request } from 'undici';
import {
  SearchUnavailableError,
  type SearchDoc,
  type SearchFilters,
  type SearchIndex,
  type SearchQuery,
  type SearchResult,
} from '@commerce/catalog-core';
import type { Logger } from '@commerce/shared-logging';

/**
 * `infra/meilisearch/settings.json`, from the working directory, like the store configuration: the repo
 * root when run from source, `/app` in the image (a bundle's own location says nothing about infra/).
 */
export const MEILI_SETTINGS_PATH = resolve('infra/meilisearch/settings.json');

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
}

interface Task {
  taskUid?: number;
  uid?: number;
  status: 'enqueued' | 'processing' | 'succeeded' | 'failed' | 'canceled';
  error?: { message?: string; code?: string } | null;
}

/**
 * Meilisearch through its documented REST API (undici, keep-alive). The `meilisearch` npm client is
 * ESM-only and its types do not resolve under this repo's CommonJS/node10 module settings, so the
 * handful of calls we need are made directly. Every write waits for its task, so a resolved `upsert`
 * means searchable, as the port promises.
 */
export class MeiliSearchIndex implements SearchIndex {
  readonly kind = 'meilisearch' as const;
  private readonly agent = new Agent({ keepAliveTimeout: 30_000, connections: 16 });
  private readonly index: string;

  private constructor(
    private readonly url: string,
    private readonly options: MeiliOptions,
  ) {
    this.index = options.indexName ?? 'products';
  }

  /** Connects, creates the index when missing and applies the settings; throws `SearchUnavailableError` when Meilisearch does not answer. */
  static async open(url: string, options: MeiliOptions = {}): Promise<MeiliSearchIndex> {
    const meili = new MeiliSearchIndex(url.replace(/\/+$/, ''), options);
    try {
      await meili.ping();
    } catch (error) {
      await meili.close();
      throw new SearchUnavailableError(`search: cannot reach Meilisearch at ${url} (${describe(error)})`, { cause: error });
    }
    const created = await meili.call<Task>('POST', '/indexes', { uid: meili.index, primaryKey: 'id' });
    const task = await meili.waitFor(created, true);
    if (task.status === 'failed' && task.error?.code !== 'index_already_exists')
      throw new Error(`search: cannot create index ${meili.index}: ${task.error?.message}`);
    await meili.waitFor(await meili.call<Task>('PATCH', `/indexes/${meili.index}/settings`, options.settings ?? loadMeiliSettings()));
    options.logger?.info({ search: url, index: meili.index }, 'search: Meilisearch index ready');
    return meili;
  }

  async ping(): Promise<void> {
    const health = await this.call<{ status?: string }>('GET', '/health');
    if (health.status !== 'available') throw new Error(`health is ${health.status}`);
  }

  async upsert(docs: SearchDoc[]): Promise<void> {
    if (docs.length === 0) return;
    await this.waitFor(await this.call<Task>('POST', `/indexes/${this.index}/documents?primaryKey=id`, docs));
  }

  async remove(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.waitFor(await this.call<Task>('POST', `/indexes/${this.index}/documents/delete-batch`, ids));
  }

  async clear(): Promise<void> {
    await this.waitFor(await this.call<Task>('DELETE', `/indexes/${this.index}/documents`));
  }

  async search(query: SearchQuery): Promise<SearchResult> {
    const f = query.filters;
    // A filter on an empty list matches nothing; said here rather than in Meilisearch's filter syntax.
    if (f && [f.ids, f.brands, f.collections, f.categories].some((values) => values?.length === 0)) {
      return { ids: [], total: 0, ...(query.facets?.length ? { facets: Object.fromEntries(query.facets.map((k) => [k, {}])) } : {}) };
    }
    // page/hitsPerPage (not offset/limit) so that totalHits is exact; an unaligned offset reads from page 1.
    const aligned = query.offset % query.limit === 0;
    const hitsPerPage = aligned ? query.limit : query.offset + query.limit;
    const page = aligned ? query.offset / query.limit + 1 : 1;
    const filter = filterExpression(query.filters);
    const body = {
      q: query.text ?? '',
      matchingStrategy: 'all',
      attributesToRetrieve: ['id'],
      page,
      hitsPerPage,
      ...(filter ? { filter } : {}),
      ...(query.sort && query.sort.length > 0 ? { sort: query.sort.map((s) => `${s.field}:${s.order}`) } : {}),
      ...(query.facets && query.facets.length > 0 ? { facets: query.facets } : {}),
    };
    const res = await this.call<{
      hits: Array<{ id: string }>;
      totalHits: number;
      facetDistribution?: Record<string, Record<string, number>>;
    }>('POST', `/indexes/${this.index}/search`, body);
    const ids = res.hits.map((h) => String(h.id));
    const result: SearchResult = { ids: aligned ? ids : ids.slice(query.offset), total: res.totalHits };
    if (query.facets && query.facets.length > 0) {
      result.facets = Object.fromEntries(query.facets.map((f) => [f, res.facetDistribution?.[f] ?? {}]));
    }
    return result;
  }

  /** Deletes the whole index (tests, or before a rebuild under another name). */
  async deleteIndex(): Promise<void> {
    await this.waitFor(await this.call<Task>('DELETE', `/indexes/${this.index}`), true);
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  private async waitFor(enqueued: Task, allowFailure = false): Promise<Task> {
    const uid = enqueued.taskUid ?? enqueued.uid;
    const deadline = Date.now() + (this.options.taskTimeoutMs ?? 60_000);
    for (let delay = 10; ; delay = Math.min(delay * 2, 250)) {
      const task = await this.call<Task>('GET', `/tasks/${uid}`);
      if (task.status === 'succeeded' || task.status === 'failed' || task.status === 'canceled') {
        if (task.status !== 'succeeded' && !allowFailure)
          throw new Error(`search: Meilisearch task ${uid} ${task.status}: ${task.error?.message ?? ''}`);
        return task;
      }
      if (Date.now() > deadline)
        throw new Error(`search: Meilisearch task ${uid} still ${task.status} after ${this.options.taskTimeoutMs ?? 60_000} ms`);
      await new Promise((r) => setTimeout(r, delay));
    }
  }

  private async call<T>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> {
    const res = await request(`${this.url}${path}`, {
      method,
      dispatcher: this.agent,
      headers: {
        'content-type': 'application/json',
        ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      headersTimeout: 10_000,
      bodyTimeout: 30_000,
    });
    const text = await res.body.text();
    const json = text ? (JSON.parse(text) as T & { message?: string; code?: string }) : ({} as T & { message?: string });
    if (res.statusCode >= 400) throw new Error(`search: Meilisearch ${method} ${path} answered ${res.statusCode}: ${json.message ?? text}`);
    return json;
  }
}

const quote = (value: string): string => JSON.stringify(value);

/** Filter fields combine with AND, values of one field with OR (`brand IN ["1","2"]`). */
export function filterExpression(f: SearchFilters | undefined): string | undefined {
  if (!f) return undefined;
  const parts: string[] = [];
  const anyOf = (field: string, values: string[] | undefined) => {
    if (values && values.length > 0) parts.push(`${field} IN [${values.map(quote).join(', ')}]`);
  };
  anyOf('id', f.ids);
  anyOf('brand', f.brands);
  anyOf('collection', f.collections);
  anyOf('categories', f.categories);
  if (f.inStock !== undefined) parts.push(`inStock = ${f.inStock}`);
  return parts.length > 0 ? parts.join(' AND ') : undefined;
}

function describe(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown; cause?: { code?: unknown } };
  if (typeof e?.code === 'string' && /^E[A-Z]+$/.test(e.code)) return e.code;
  if (typeof e?.cause?.code === 'string') return e.cause.code;
  return (typeof e?.message === 'string' ? e.message : String(error)).split('\n')[0]!;
}
