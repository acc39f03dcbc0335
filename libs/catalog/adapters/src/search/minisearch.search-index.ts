import MiniSearch from 'minisearch';
import {
  EVERY_MARKET,
  FACET_FIELDS,
  SEARCHABLE_ATTRIBUTES,
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
import { matchKind, normalizeTerm, termsOf, tokenize } from './search-text';

interface Token {
  term: string;
  /** Position: attribute index × 1000 + word index, so words of different attributes are far apart. */
  pos: number;
  attr: number;
}

/** A stored document and the ordinals of its facet values, by position in FACET_FIELDS. */
interface Entry {
  doc: SearchDoc;
  facets: number[][];
}

interface Hit {
  entry: Entry;
  doc: SearchDoc;
  score: number;
  typos: number;
  proximity: number;
  attribute: number;
  /** The document's values of the query's sort keys, read once. */
  keys: SortValue[];
}

type SortValue = number | string | undefined;

const MAX_PROXIMITY = 8;
const searchableText = (doc: SearchDoc, field: string): string => {
  const value = doc[field as keyof SearchDoc];
  return Array.isArray(value) ? value.join(' \u2063 ') : String(value ?? '');
};

/**
 * The embedded search engine (MiniSearch) with Meilisearch's matching rules. Matching is decided here,
 * word by word, against the vocabulary of the index (exact, prefix for the last word, one typo for
 * words of 4+ characters, not on the first letter); MiniSearch then scores the documents that contain
 * every word, and hits are ordered like Meilisearch's default ranking rules: fewer typos, closer words,
 * a more important attribute, the requested sort, then the score.
 */
export class MiniSearchIndex implements SearchIndex {
  readonly kind = 'embedded' as const;
  /** Stored documents (the index's own copies) with the ordinals of their facet values. */
  private readonly docs = new Map<string, Entry>();
  private readonly tokens = new Map<string, Token[]>();
  /** Indexed word → number of documents holding it; grouped by first character to keep scans short. */
  private readonly vocabulary = new Map<string, Map<string, number>>();
  /**
   * Facet values by field: each distinct value (by its facet key) gets an ordinal, shown as the first
   * document indexed with it wrote it (as Meilisearch shows a value). Each document keeps the ordinals of
   * its values, so counting a facet over the matches is a pass of array increments.
   */
  private facetValues = new Map<FacetField, { ordinals: Map<string, number>; shown: string[] }>();
  /** `facetTotals` by scope and facets; any write clears it. */
  private readonly totals = new Map<string, FacetCounts>();
  private readonly mini = new MiniSearch<SearchDoc>({
    idField: 'id',
    fields: [...SEARCHABLE_ATTRIBUTES],
    extractField: (doc, field) => (field === 'id' ? doc.id : searchableText(doc, field)),
    tokenize: (text) => tokenize(text),
    processTerm: (term) => normalizeTerm(term) || null,
    searchOptions: { prefix: false, fuzzy: false },
  });

  async upsert(docs: SearchDoc[]): Promise<void> {
    this.totals.clear();
    for (const doc of docs) {
      this.removeOne(doc.id);
      const copy = structuredClone(doc);
      this.docs.set(doc.id, { doc: copy, facets: this.facetOrdinals(copy) });
      const tokens = SEARCHABLE_ATTRIBUTES.flatMap((attr, a) =>
        termsOf(searchableText(copy, attr)).map((term, k) => ({ term, pos: a * 1000 + k, attr: a })),
      );
      this.tokens.set(doc.id, tokens);
      for (const term of new Set(tokens.map((t) => t.term))) this.addWord(term, 1);
      this.mini.add(copy);
    }
  }

  async remove(ids: string[]): Promise<void> {
    this.totals.clear();
    for (const id of ids) this.removeOne(id);
  }

  async clear(): Promise<void> {
    this.totals.clear();
    this.facetValues = new Map();
    this.docs.clear();
    this.tokens.clear();
    this.vocabulary.clear();
    this.mini.removeAll();
  }

  /** In process: always ready. */
  ping(): Promise<void> {
    return Promise.resolve();
  }

  async search(query: SearchQuery): Promise<SearchResult> {
    const terms = termsOf(query.text ?? '');
    const wanted = compileFilter(query.filters, query.scope);
    let hits: Hit[];
    if (terms.length > 0) hits = this.match(terms, wanted);
    else {
      hits = [];
      for (const entry of this.docs.values())
        if (wanted(entry.doc)) hits.push({ entry, doc: entry.doc, score: 0, typos: 0, proximity: 0, attribute: 0, keys: [] });
    }
    const sort = query.sort ?? [];
    if (sort.length > 0) for (const h of hits) h.keys = sort.map((key) => sortValue(h.doc, key));
    // Meilisearch's ranking rules in settings.json: words (all required), sort, typo, proximity, attribute, exactness.
    const rank = (a: Hit, b: Hit) =>
      compareKeys(a.keys, b.keys, sort) ||
      a.typos - b.typos ||
      a.proximity - b.proximity ||
      a.attribute - b.attribute ||
      b.score - a.score ||
      a.doc.productId - b.doc.productId;
    const page = firstInOrder(hits, query.offset + query.limit, rank).slice(query.offset);
    const result: SearchResult = { ids: page.map((h) => h.doc.id), total: hits.length };
    if (query.facets && query.facets.length > 0)
      result.facets = this.facetCounts(
        hits.map((h) => h.entry),
        query.facets,
      );
    return result;
  }

  async facetTotals(scope: SearchScope, facets: FacetField[]): Promise<FacetCounts> {
    const key = JSON.stringify([scope.market ?? null, scope.pricelist ?? null, [...facets].sort()]);
    let counts = this.totals.get(key);
    if (!counts) {
      const inScope = compileFilter(undefined, scope);
      counts = this.facetCounts(
        [...this.docs.values()].filter((entry) => inScope(entry.doc)),
        facets,
      );
      this.totals.set(key, counts);
    }
    return counts;
  }

  /** The documents holding every word (the last one as a prefix) that pass the filter, with what ranks them. */
  private match(terms: string[], wanted: (doc: SearchDoc) => boolean): Hit[] {
    // For each query word, the indexed words it matches and how.
    const candidates = terms.map((term, i) => this.candidatesOf(term, i === terms.length - 1));
    if (candidates.some((c) => c.size === 0)) return [];
    const results = this.mini.search({
      combineWith: 'AND',
      queries: candidates.map((c) => ({ combineWith: 'OR', queries: [...c.keys()] })),
    });
    const hits: Hit[] = [];
    for (const r of results) {
      const entry = this.docs.get(String(r.id));
      // Filter first: ranking details cost a walk over the document's words.
      if (!entry || !wanted(entry.doc)) continue;
      const doc = entry.doc;
      const tokens = this.tokens.get(doc.id) ?? [];
      let typos = 0;
      let attribute = Number.MAX_SAFE_INTEGER;
      const positions = candidates.map((c) => {
        const matched = tokens.filter((t) => c.has(t.term));
        if (!matched.some((t) => c.get(t.term) !== 'typo')) typos++;
        for (const t of matched) attribute = Math.min(attribute, t.attr);
        return matched.map((t) => t.pos);
      });
      let proximity = 0;
      for (let i = 1; i < positions.length; i++) {
        let best = MAX_PROXIMITY;
        for (const p of positions[i - 1]!) for (const q of positions[i]!) best = Math.min(best, q > p ? q - p : p - q + 1);
        proximity += best;
      }
      hits.push({ entry, doc, score: r.score, typos, proximity, attribute, keys: [] });
    }
    return hits;
  }

  private candidatesOf(term: string, isLast: boolean): Map<string, 'exact' | 'prefix' | 'typo'> {
    const found = new Map<string, 'exact' | 'prefix' | 'typo'>();
    const chars = [...term];
    for (const word of this.vocabulary.get(chars[0]!)?.keys() ?? []) {
      const kind = matchKind(chars, [...word], isLast);
      if (kind) found.set(word, kind);
    }
    return found;
  }

  private facetOrdinals(doc: SearchDoc): number[][] {
    return FACET_FIELDS.map((facet) => {
      let registry = this.facetValues.get(facet);
      if (!registry) this.facetValues.set(facet, (registry = { ordinals: new Map(), shown: [] }));
      const v = doc[facet];
      const ordinals: number[] = [];
      for (const value of typeof v === 'string' ? [v] : Array.isArray(v) ? v : []) {
        const key = facetKey(value);
        if (key === '') continue;
        let ordinal = registry.ordinals.get(key);
        if (ordinal === undefined) {
          ordinal = registry.shown.length;
          registry.ordinals.set(key, ordinal);
          registry.shown.push(value);
        }
        // A document counts once per value, however often its list holds it.
        if (!ordinals.includes(ordinal)) ordinals.push(ordinal);
      }
      return ordinals;
    });
  }

  /** Documents per value, counted over these documents; values that differ only in case are one. */
  private facetCounts(entries: Entry[], facets: FacetField[]): FacetCounts {
    const wanted = facets.map((facet) => FACET_FIELDS.indexOf(facet)).filter((f) => f >= 0);
    const tallies = wanted.map((f) => new Uint32Array(this.facetValues.get(FACET_FIELDS[f]!)?.shown.length ?? 0));
    for (const { facets: own } of entries) {
      for (let w = 0; w < wanted.length; w++) {
        const ordinals = own[wanted[w]!]!;
        const tally = tallies[w]!;
        for (let i = 0; i < ordinals.length; i++) tally[ordinals[i]!]!++;
      }
    }
    const counts: FacetCounts = {};
    wanted.forEach((f, w) => {
      const facet = FACET_FIELDS[f]!;
      const shown = this.facetValues.get(facet)?.shown ?? [];
      const values: Record<string, number> = {};
      tallies[w]!.forEach((n, ordinal) => {
        if (n > 0) values[shown[ordinal]!] = n;
      });
      counts[facet] = values;
    });
    return counts;
  }

  private removeOne(id: string): void {
    if (!this.docs.has(id)) return;
    for (const term of new Set((this.tokens.get(id) ?? []).map((t) => t.term))) this.addWord(term, -1);
    this.mini.discard(id);
    this.docs.delete(id);
    this.tokens.delete(id);
  }

  private addWord(term: string, delta: number): void {
    const first = [...term][0]!;
    const group = this.vocabulary.get(first) ?? new Map<string, number>();
    const n = (group.get(term) ?? 0) + delta;
    if (n > 0) group.set(term, n);
    else group.delete(term);
    if (group.size > 0) this.vocabulary.set(first, group);
    else this.vocabulary.delete(first);
  }
}

/** Filter and facet values compare as Meilisearch compares them: trimmed, whatever their case (accents count). */
const facetKeys = new Map<string, string>();
function facetKey(value: string): string {
  let key = facetKeys.get(value);
  if (key === undefined) {
    // Remembered: the same few values (markets, brands, colours) come back in every query.
    if (facetKeys.size > 200_000) facetKeys.clear();
    key = value.trim().toLowerCase();
    facetKeys.set(value, key);
  }
  return key;
}

function sortValue(doc: SearchDoc, key: SortKey): SortValue {
  if (key.field === 'price') return doc.prices[key.pricelist];
  const v = doc[key.field];
  // Meilisearch sorts strings by their lower case and treats an empty one as no value.
  return typeof v === 'string' ? v.toLowerCase() || undefined : v;
}

/** Like Meilisearch, a document without the value comes after those with one, in either order. */
function compareKeys(a: SortValue[], b: SortValue[], sort: SortKey[]): number {
  for (let i = 0; i < sort.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue;
    if (x === undefined) return 1;
    if (y === undefined) return -1;
    const c = typeof x === 'number' && typeof y === 'number' ? x - y : x < y ? -1 : 1;
    return sort[i]!.order === 'asc' ? c : -c;
  }
  return 0;
}

/** Some value of the document's (string or list) attribute is among the wanted keys. */
function hasAny(value: string | string[] | null, keys: Set<string>): boolean {
  if (value === null) return false;
  if (typeof value === 'string') return keys.has(facetKey(value));
  for (const v of value) if (keys.has(facetKey(v))) return true;
  return false;
}

/**
 * The scope and the filters as one test of a document, its value sets built once per query: fields
 * combine with AND, the values of one with OR; an empty list matches nothing.
 */
function compileFilter(f: SearchFilters | undefined, scope: SearchScope | undefined): (doc: SearchDoc) => boolean {
  const tests: Array<(doc: SearchDoc) => boolean> = [];
  const keys = (values: string[]) => new Set(values.map(facetKey));
  const anyOf = (values: string[] | undefined, get: (doc: SearchDoc) => string | string[] | null) => {
    if (values === undefined) return;
    const wanted = keys(values);
    tests.push((doc) => hasAny(get(doc), wanted));
  };
  if (scope?.market !== undefined) anyOf([EVERY_MARKET, scope.market], (d) => d.markets);
  if (scope?.pricelist !== undefined) anyOf([scope.pricelist], (d) => d.pricelists);
  if (f) {
    anyOf(f.ids, (d) => d.id);
    if (f.platformProducts) {
      const products = new Set(f.platformProducts);
      tests.push((d) => products.has(d.platformProduct));
    }
    anyOf(f.brands, (d) => d.brand);
    anyOf(f.collections, (d) => d.collection);
    anyOf(f.categories, (d) => d.categoryTree);
    anyOf(f.swatchDescs, (d) => d.swatchDesc);
    anyOf(f.itemNames, (d) => d.itemNames);
    anyOf(f.availableItemNames, (d) => d.availableItemNames);
    if (f.inStock !== undefined) tests.push((d) => d.inStock === f.inStock);
    if (f.uri) {
      const ids = keys(f.uri.ids);
      const categories = keys(f.uri.categories);
      tests.push((d) => ids.has(d.id) || hasAny(d.categoryTree, categories));
    }
    for (const [field, values] of Object.entries(f.extra ?? {}) as Array<[keyof NonNullable<SearchFilters['extra']>, string[]]>)
      anyOf(values, (d) => d[field]);
  }
  return (doc) => tests.every((test) => test(doc));
}

/**
 * The first `k` items in order, without sorting them all: a page of 24 out of 30 000 matches costs a pass
 * with a bounded heap (n log k), not a sort of every match (n log n).
 */
export function firstInOrder<T>(items: T[], k: number, compare: (a: T, b: T) => number): T[] {
  if (k <= 0) return [];
  if (k * 4 >= items.length) return [...items].sort(compare).slice(0, k);
  // A max-heap of the k best so far: its root is the worst of them.
  const heap: T[] = [];
  const swap = (i: number, j: number) => ([heap[i], heap[j]] = [heap[j]!, heap[i]!]);
  for (const item of items) {
    if (heap.length < k) {
      heap.push(item);
      for (let i = heap.length - 1; i > 0;) {
        const parent = (i - 1) >> 1;
        if (compare(heap[i]!, heap[parent]!) <= 0) break;
        swap(i, parent);
        i = parent;
      }
    } else if (compare(item, heap[0]!) < 0) {
      heap[0] = item;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let largest = i;
        if (l < k && compare(heap[l]!, heap[largest]!) > 0) largest = l;
        if (r < k && compare(heap[r]!, heap[largest]!) > 0) largest = r;
        if (largest === i) break;
        swap(i, largest);
        i = largest;
      }
    }
  }
  return heap.sort(compare);
}

export const createEmbeddedSearchIndex = (): SearchIndex => new MiniSearchIndex();
