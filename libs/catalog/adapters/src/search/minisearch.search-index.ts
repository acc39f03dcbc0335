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

interface Hit {
  id: string;
  score: number;
  typos: number;
  proximity: number;
  attribute: number;
}

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
  private readonly docs = new Map<string, SearchDoc>();
  private readonly tokens = new Map<string, Token[]>();
  /** Indexed word → number of documents holding it; grouped by first character to keep scans short. */
  private readonly vocabulary = new Map<string, Map<string, number>>();
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
      this.docs.set(doc.id, copy);
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
    const hits =
      terms.length === 0
        ? [...this.docs.keys()].map((id): Hit => ({ id, score: 0, typos: 0, proximity: 0, attribute: 0 }))
        : this.match(terms);
    const filtered = hits.filter((h) => {
      const doc = this.docs.get(h.id)!;
      return inScope(doc, query.scope) && matchesFilters(doc, query.filters);
    });
    // Meilisearch's ranking rules in settings.json: words (all required), sort, typo, proximity, attribute, exactness.
    filtered.sort(
      (a, b) =>
        this.compareSort(a.id, b.id, query.sort) ||
        a.typos - b.typos ||
        a.proximity - b.proximity ||
        a.attribute - b.attribute ||
        b.score - a.score ||
        Number(a.id) - Number(b.id),
    );
    const result: SearchResult = { ids: filtered.slice(query.offset, query.offset + query.limit).map((h) => h.id), total: filtered.length };
    if (query.facets && query.facets.length > 0)
      result.facets = this.facetCounts(
        filtered.map((h) => this.docs.get(h.id)!),
        query.facets,
      );
    return result;
  }

  async facetTotals(scope: SearchScope, facets: FacetField[]): Promise<FacetCounts> {
    const key = JSON.stringify([scope.market ?? null, scope.pricelist ?? null, [...facets].sort()]);
    let counts = this.totals.get(key);
    if (!counts) {
      counts = this.facetCounts(
        [...this.docs.values()].filter((doc) => inScope(doc, scope)),
        facets,
      );
      this.totals.set(key, counts);
    }
    return counts;
  }

  private match(terms: string[]): Hit[] {
    // For each query word, the indexed words it matches and how.
    const candidates = terms.map((term, i) => this.candidatesOf(term, i === terms.length - 1));
    if (candidates.some((c) => c.size === 0)) return [];
    const results = this.mini.search({
      combineWith: 'AND',
      queries: candidates.map((c) => ({ combineWith: 'OR', queries: [...c.keys()] })),
    });
    return results.map((r) => {
      const id = String(r.id);
      const tokens = this.tokens.get(id) ?? [];
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
      return { id, score: r.score, typos, proximity, attribute };
    });
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

  private compareSort(a: string, b: string, sort: SortKey[] | undefined): number {
    for (const key of sort ?? []) {
      const x = sortValue(this.docs.get(a)!, key);
      const y = sortValue(this.docs.get(b)!, key);
      // Like Meilisearch, a document without the value comes after those with one, in either order.
      if (x === undefined || y === undefined) {
        if (x !== y) return x === undefined ? 1 : -1;
        continue;
      }
      const c = typeof x === 'number' && typeof y === 'number' ? x - y : x < y ? -1 : x > y ? 1 : 0;
      if (c !== 0) return key.order === 'asc' ? c : -c;
    }
    return 0;
  }

  /**
   * Documents per value, counted over these documents. Values that differ only in case count as one,
   * shown as the first document indexed has it (as Meilisearch does).
   */
  private facetCounts(docs: SearchDoc[], facets: FacetField[]): FacetCounts {
    const counts: FacetCounts = {};
    for (const facet of facets.filter((f) => FACET_FIELDS.includes(f))) {
      const byKey = new Map<string, { shown: string; n: number }>();
      for (const doc of docs) {
        const v = doc[facet];
        const values = Array.isArray(v) ? v : v === null || v === undefined ? [] : [v];
        const seen = new Set<string>();
        for (const value of values) {
          const key = facetKey(value);
          if (key === '' || seen.has(key)) continue;
          seen.add(key);
          const entry = byKey.get(key);
          if (entry) entry.n++;
          else byKey.set(key, { shown: value, n: 1 });
        }
      }
      counts[facet] = Object.fromEntries([...byKey.values()].map((e) => [e.shown, e.n]));
    }
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
const facetKey = (value: string): string => value.trim().toLowerCase();

function sortValue(doc: SearchDoc, key: SortKey): number | string | undefined {
  if (key.field === 'price') return doc.prices[key.pricelist];
  const v = doc[key.field];
  // Meilisearch sorts strings by their lower case and treats an empty one as no value.
  return typeof v === 'string' ? v.toLowerCase() || undefined : v;
}

function inScope(doc: SearchDoc, scope: SearchScope | undefined): boolean {
  if (scope?.market !== undefined && !doc.markets.some((m) => m === EVERY_MARKET || facetKey(m) === facetKey(scope.market!))) return false;
  if (scope?.pricelist !== undefined && !doc.pricelists.some((p) => facetKey(p) === facetKey(scope.pricelist!))) return false;
  return true;
}

/** Some value of the document's (string or list) attribute is among the wanted ones. */
function anyOf(value: string | string[] | null, wanted: string[] | undefined): boolean {
  if (wanted === undefined) return true;
  const keys = new Set(wanted.map(facetKey));
  const values = Array.isArray(value) ? value : value === null ? [] : [value];
  return values.some((v) => keys.has(facetKey(v)));
}

function matchesFilters(doc: SearchDoc, f: SearchFilters | undefined): boolean {
  if (!f) return true;
  if (!anyOf(doc.id, f.ids)) return false;
  if (f.platformProducts && !f.platformProducts.includes(doc.platformProduct)) return false;
  if (!anyOf(doc.brand, f.brands) || !anyOf(doc.collection, f.collections) || !anyOf(doc.categoryTree, f.categories)) return false;
  if (!anyOf(doc.swatchDesc, f.swatchDescs) || !anyOf(doc.itemNames, f.itemNames) || !anyOf(doc.availableItemNames, f.availableItemNames))
    return false;
  if (f.inStock !== undefined && doc.inStock !== f.inStock) return false;
  if (f.uri && !(anyOf(doc.id, f.uri.ids) || anyOf(doc.categoryTree, f.uri.categories))) return false;
  for (const [field, values] of Object.entries(f.extra ?? {}) as Array<[keyof NonNullable<SearchFilters['extra']>, string[]]>) {
    if (!anyOf(doc[field], values)) return false;
  }
  return true;
}

export const createEmbeddedSearchIndex = (): SearchIndex => new MiniSearchIndex();
