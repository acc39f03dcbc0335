import type { SearchDoc, SearchIndex } from '@commerce/catalog-core';

/**
 * The indexer's writes to a shared search engine, grouped (decision 87): the bus hands each partition's
 * run of `catalog.product.v1` to its own handler, and each handler's `upsert` was one Meilisearch documents
 * task. Meilisearch pays a fixed cost per batch of tasks it processes (a few hundred ms on two busy cores:
 * its commit, the facet and prefix post-processing), and batches only what is already enqueued when it
 * starts, so a SOAP batch's ~2,800 documents went as 7–8 batches one after the other.
 *
 * Here a write waits while another handler of the group is still building its documents (reading its
 * products' views), and then all waiting writes go as one `upsert` (and one `remove`): the partitions' runs
 * of a batch become one task. One group write is in flight at a time; writes arriving meanwhile make the
 * next one. Every caller resolves once the write holding its documents resolved (searchable, as the port
 * promises) and fails if it failed: a failed group is written again call by call, so one bad write fails
 * only its own caller. `maxWaitMs` bounds how long a write waits for the others (default 1 s).
 */
export interface SearchWriteGroup {
  /** `search` whose `upsert` and `remove` join the group; everything else is `search`'s own. Use it inside `run`. */
  readonly search: SearchIndex;
  /** Runs one handler's work: while it runs and has not reached a write, the others' writes wait for it. */
  run<T>(work: () => Promise<T>): Promise<T>;
}

interface Waiting {
  kind: 'upsert' | 'remove';
  docs: SearchDoc[];
  ids: string[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

export function searchWriteGroup(search: SearchIndex, options: { maxWaitMs?: number } = {}): SearchWriteGroup {
  const maxWaitMs = options.maxWaitMs ?? 1_000;
  let building = 0;
  let writing = false;
  let waiting: Waiting[] = [];
  let timer: NodeJS.Timeout | undefined;

  const writeOne = (w: Waiting) => (w.kind === 'upsert' ? search.upsert(w.docs) : search.remove(w.ids));
  const write = async (group: Waiting[]): Promise<void> => {
    const upserts = group.filter((w) => w.kind === 'upsert');
    const removes = group.filter((w) => w.kind === 'remove');
    try {
      // A product's variants are either shown or hidden in one handler's write, and a product lives on one
      // partition (so one handler at a time): the upserts and the removals of a group never name one id.
      if (upserts.length > 0) await search.upsert(upserts.flatMap((w) => w.docs));
      if (removes.length > 0) await search.remove(removes.flatMap((w) => w.ids));
      for (const w of group) w.resolve();
    } catch (error) {
      if (group.length === 1) return group[0]!.reject(error);
      for (const w of group) await writeOne(w).then(w.resolve, w.reject);
    }
  };
  const flush = (force: boolean): void => {
    if (writing || waiting.length === 0) return;
    if (building > 0 && !force) {
      timer ??= setTimeout(() => {
        timer = undefined;
        flush(true);
      }, maxWaitMs);
      return;
    }
    clearTimeout(timer);
    timer = undefined;
    writing = true;
    const group = waiting;
    waiting = [];
    void write(group).finally(() => {
      writing = false;
      flush(false);
    });
  };
  const join = (kind: Waiting['kind'], docs: SearchDoc[], ids: string[]): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      building = Math.max(0, building - 1);
      waiting.push({ kind, docs, ids, resolve, reject });
      flush(false);
    }).finally(() => {
      building++;
    });

  const grouped: SearchIndex = {
    kind: search.kind,
    upsert: (docs) => (docs.length === 0 ? Promise.resolve() : join('upsert', docs, [])),
    remove: (ids) => (ids.length === 0 ? Promise.resolve() : join('remove', [], ids)),
    search: (query) => search.search(query),
    facetTotals: (scope, facets) => search.facetTotals(scope, facets),
    clear: () => search.clear(),
    ping: () => search.ping(),
  };
  return {
    search: grouped,
    async run<T>(work: () => Promise<T>): Promise<T> {
      building++;
      try {
        return await work();
      } finally {
        building = Math.max(0, building - 1);
        flush(false);
      }
    },
  };
}
