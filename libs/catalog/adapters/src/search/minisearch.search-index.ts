import MiniSearch from 'minisearch';
import {
  FACET_FIELDS,
  SEARCHABLE_ATTRIBUTES,
  type FacetField,
  type SearchDoc,
  type SearchFilters,
  type SearchIndex,
  type SearchQuery,
  type SearchResult,
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
  private readonly mini = new MiniSearch<SearchDoc>({
    idField: 'id',
    fields: [...SEARCHABLE_ATTRIBUTES],
    extractField: (doc, field) => (field === 'id' ? doc.id : searchableText(doc, field)),
    tokenize: (text) => tokenize(text),
    processTerm: (term) => normalizeTerm(term) || null,
    searchOptions: { prefix: false, fuzzy: false },
  });

  async upsert(docs: SearchDoc[]): Promise<void> {
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
    for (const id of ids) this.removeOne(id);
  }

  async clear(): Promise<void> {
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
    const filtered = hits.filter((h) => matchesFilters(this.docs.get(h.id)!, query.filters));
    filtered.sort(
      (a, b) =>
        a.typos - b.typos ||
        a.proximity - b.proximity ||
        a.attribute - b.attribute ||
        this.compareSort(a.id, b.id, query.sort) ||
        b.score - a.score ||
        Number(a.id) - Number(b.id),
    );
    const result: SearchResult = { ids: filtered.slice(query.offset, query.offset + query.limit).map((h) => h.id), total: filtered.length };
    if (query.facets && query.facets.length > 0) result.facets = this.facetCounts(filtered, query.facets);
    return result;
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

  private compareSort(a: string, b: string, sort: SearchQuery['sort']): number {
    for (const { field, order } of sort ?? []) {
      const x = this.docs.get(a)![field];
      const y = this.docs.get(b)![field];
      const c = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
      if (c !== 0) return order === 'asc' ? c : -c;
    }
    return 0;
  }

  private facetCounts(hits: Hit[], facets: FacetField[]): NonNullable<SearchResult['facets']> {
    const counts: NonNullable<SearchResult['facets']> = {};
    for (const facet of facets.filter((f) => FACET_FIELDS.includes(f))) {
      const values: Record<string, number> = {};
      for (const h of hits) {
        const v = this.docs.get(h.id)![facet];
        for (const value of Array.isArray(v) ? v : v === null ? [] : [v]) values[value] = (values[value] ?? 0) + 1;
      }
      counts[facet] = values;
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

function matchesFilters(doc: SearchDoc, f: SearchFilters | undefined): boolean {
  if (!f) return true;
  if (f.ids && !f.ids.includes(doc.id)) return false;
  if (f.brands && !(doc.brand !== null && f.brands.includes(doc.brand))) return false;
  if (f.collections && !(doc.collection !== null && f.collections.includes(doc.collection))) return false;
  if (f.categories && !doc.categories.some((c) => f.categories!.includes(c))) return false;
  if (f.inStock !== undefined && doc.inStock !== f.inStock) return false;
  return true;
}

export const createEmbeddedSearchIndex = (): SearchIndex => new MiniSearchIndex();
