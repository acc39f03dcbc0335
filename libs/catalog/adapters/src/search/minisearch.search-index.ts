import MiniSearch, { type Query } from 'minisearch';
import {
  EVERY_MARKET,
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
import { emptySearchSettings, MAX_SYNONYM_WORDS, type SearchSettings } from './search-settings';
import { matchKind, normalizeTerm, termsOf, tokenize } from './search-text';
import { copyDoc, facetKey, FIELD_INDEX, SET_FIELDS, valuesOf, type Entry, type SetField } from './minisearch-documents';
import { countBits, Posting } from './minisearch-postings';
import { compareKeys, firstInOrder, ranking, sortValue, type Hit } from './minisearch-ranking';

interface Token {
  term: string;
  /** Position: attribute index × 1000 + word index, so words of different attributes are far apart. */
  pos: number;
  attr: number;
}

type Kind = 'exact' | 'prefix' | 'typo';

/**
 * One part of a query: its words (each with the indexed words it matches and how), or, where the words
 * are a synonym's key, one of its alternatives instead: words that must stand together, spelt exactly.
 */
interface QueryPart {
  words: Array<Map<string, Kind>>;
  alternatives: string[][];
}

const MAX_PROXIMITY = 8;
const searchableText = (doc: SearchDoc, field: string): string => {
  const value = doc[field as keyof SearchDoc];
  return Array.isArray(value) ? value.join(' \u2063 ') : String(value ?? '');
};

/** A field's distinct values (by facet key), each with an ordinal, the value shown and its documents. */
interface FieldValues {
  ordinals: Map<string, number>;
  /** As the first document indexed with it wrote it (as Meilisearch shows a value). */
  shown: string[];
  postings: Posting[];
}

/** The slots of every document under one sort: its keys, then the id. */
interface SortOrder {
  slots: Int32Array;
}

/** Below this many matches a query's sort is done on the matches; above, the whole order is read (cached until a write). */
const SMALL_MATCH = 1024;
const MAX_CACHED_ORDERS = 16;

/**
 * The embedded search engine (MiniSearch) with Meilisearch's matching rules. Matching is decided here,
 * word by word, against the vocabulary of the index (exact, prefix for the last word, one typo for
 * words of 4+ characters, not on the first letter); MiniSearch then scores the documents that contain
 * every word, and hits are ordered like Meilisearch's ranking rules: the requested sort, fewer typos,
 * closer words, a more important attribute, then the score.
 *
 * Scope, filters, facet counts and totals never scan documents: each document has a dense slot, each
 * value of a set field (SET_FIELDS) the set of slots holding it (a list while small, else a bitset),
 * kept on upsert and remove. A query's matches are a bitset: the live documents, AND per filter field
 * the OR of its values' sets, AND the text's hits from MiniSearch. A facet value's count is the popcount
 * of its set AND the matches, read over the matches' non-zero words only (or, for a few matches, a
 * tally of their own values), so it costs what the matches cost, not what the page or the index holds.
 * Without text the page is read off the sort's precomputed order (cached until the next write).
 */
export class MiniSearchIndex implements SearchIndex {
  readonly kind = 'embedded' as const;
  /** Stored documents (the index's own copies) by id. */
  private readonly docs = new Map<string, Entry>();
  /** Slot → its document; holes are reused. */
  private slots: Array<Entry | undefined> = [];
  private freeSlots: number[] = [];
  /** The slots holding a document. */
  private live = new Uint32Array(0);
  private readonly tokens = new Map<string, Token[]>();
  /** Indexed word → number of documents holding it; grouped by first character to keep scans short. */
  private readonly vocabulary = new Map<string, Map<string, number>>();
  /** A query word's matching indexed words, by word and whether it is the last; cleared when the vocabulary changes. */
  private readonly candidates = new Map<string, Map<string, Kind>>();
  /** Per SET_FIELDS position: its values and their documents. */
  private fields: FieldValues[] = SET_FIELDS.map(() => ({ ordinals: new Map(), shown: [], postings: [] }));
  /** Documents per `platformProduct` (`silkProduct`). */
  private readonly byPlatformProduct = new Map<number, Set<number>>();
  /** Documents per id by facet key (the `ids` filter compares as the other string filters do). */
  private readonly byIdKey = new Map<string, Set<number>>();
  /** `facetTotals` by scope and facets; any write clears it. */
  private readonly totals = new Map<string, FacetCounts>();
  /** MiniSearch's hits (id, score) by query words, before any filter; any write clears them. */
  private readonly textHits = new Map<string, Array<{ id: string; score: number }>>();
  /** Whole orders by sort; any write clears them. */
  private readonly orders = new Map<string, SortOrder>();
  /** The document being added and its attributes' terms, which MiniSearch's `extractField` hands back as they are. */
  private adding: { doc: SearchDoc; terms: string[][] } | undefined;
  /** Synonyms, stop words and ranking rules of the settings file (none by default). */
  private readonly settings: SearchSettings;
  private readonly rank: (a: Hit, b: Hit, sort: SortKey[]) => number;

  constructor(settings: SearchSettings = emptySearchSettings()) {
    this.settings = settings;
    this.rank = ranking(settings.rankingRules);
  }

  private readonly mini = new MiniSearch<SearchDoc>({
    idField: 'id',
    fields: [...SEARCHABLE_ATTRIBUTES],
    // A document's text is tokenised and normalised once (termsOf, for the ranking's positions too), and
    // MiniSearch indexes those terms: a field is its terms joined by spaces, split back on them.
    extractField: (doc, field) => (field === 'id' ? doc.id : this.termsText(doc, field)),
    tokenize: (text) => text.split(' '),
    processTerm: (term) => term || null,
    // A query's words are tokenised and normalised as a document's text once was.
    searchOptions: { prefix: false, fuzzy: false, tokenize: (text) => tokenize(text), processTerm: (term) => normalizeTerm(term) || null },
  });

  async upsert(docs: SearchDoc[]): Promise<void> {
    this.changed();
    for (const doc of docs) {
      this.removeOne(doc.id);
      const copy = copyDoc(doc);
      this.addOne(copy);
      const terms = SEARCHABLE_ATTRIBUTES.map((attr) => termsOf(searchableText(copy, attr), this.settings.stopWords));
      const tokens: Token[] = [];
      const words = new Set<string>();
      for (let a = 0; a < terms.length; a++) {
        const list = terms[a]!;
        for (let k = 0; k < list.length; k++) {
          tokens.push({ term: list[k]!, pos: a * 1000 + k, attr: a });
          words.add(list[k]!);
        }
      }
      this.tokens.set(doc.id, tokens);
      for (const term of words) this.addWord(term, 1);
      this.adding = { doc: copy, terms };
      try {
        this.mini.add(copy);
      } finally {
        this.adding = undefined;
      }
    }
  }

  /** A searchable field as MiniSearch indexes it: its normalised terms, space-separated. */
  private termsText(doc: SearchDoc, field: string): string {
    const a = (SEARCHABLE_ATTRIBUTES as readonly string[]).indexOf(field);
    if (this.adding?.doc === doc && a >= 0) return this.adding.terms[a]!.join(' ');
    return termsOf(searchableText(doc, field), this.settings.stopWords).join(' ');
  }

  async remove(ids: string[]): Promise<void> {
    this.changed();
    for (const id of ids) this.removeOne(id);
  }

  async clear(): Promise<void> {
    this.changed();
    this.fields = SET_FIELDS.map(() => ({ ordinals: new Map(), shown: [], postings: [] }));
    this.docs.clear();
    this.slots = [];
    this.freeSlots = [];
    this.live = new Uint32Array(0);
    this.byPlatformProduct.clear();
    this.byIdKey.clear();
    this.tokens.clear();
    this.vocabulary.clear();
    this.candidates.clear();
    this.mini.removeAll();
  }

  /** In process: always ready. */
  ping(): Promise<void> {
    return Promise.resolve();
  }

  async search(query: SearchQuery): Promise<SearchResult> {
    const terms = this.queryTerms(query.text ?? '');
    const match = this.matchBits(query.filters, query.scope);
    const sort = query.sort ?? [];
    const end = query.offset + query.limit;
    let pageEntries: Entry[];
    let total: number;
    if (terms.length > 0) {
      const hits = this.match(terms, match);
      // The hits are the matches from here on: facets count them.
      match.fill(0);
      for (const h of hits) match[h.entry.slot >>> 5]! |= 1 << (h.entry.slot & 31);
      if (sort.length > 0) for (const h of hits) h.keys = sort.map((key) => sortValue(h.doc, key));
      // The ranking rules of settings.json, in their order (words: every one is required).
      pageEntries = firstInOrder(hits, end, (a, b) => this.rank(a, b, sort))
        .slice(query.offset)
        .map((h) => h.entry);
      total = hits.length;
    } else {
      total = countBits(match);
      pageEntries = this.firstMatches(match, total, sort, end).slice(query.offset);
    }
    const result: SearchResult = { ids: pageEntries.map((e) => e.doc.id), total };
    if (query.facets && query.facets.length > 0) result.facets = this.facetCounts(match, total, query.facets);
    return result;
  }

  async facetTotals(scope: SearchScope, facets: FacetField[]): Promise<FacetCounts> {
    const key = JSON.stringify([scope.market ?? null, scope.pricelist ?? null, [...facets].sort()]);
    let counts = this.totals.get(key);
    if (!counts) {
      const inScope = this.matchBits(undefined, scope);
      counts = this.facetCounts(inScope, countBits(inScope), facets);
      this.totals.set(key, counts);
    }
    return counts;
  }

  /** The slots passing the scope and the filters: fields combine with AND, the values of one with OR; an empty list matches nothing. */
  private matchBits(f: SearchFilters | undefined, scope: SearchScope | undefined): Uint32Array {
    const match = this.live.slice();
    const words = match.length;
    const restrict = (fill: (into: Uint32Array) => void) => {
      const any = new Uint32Array(words);
      fill(any);
      for (let w = 0; w < words; w++) match[w]! &= any[w]!;
    };
    const valuesOf = (field: SetField, values: string[]) => (into: Uint32Array) => {
      const registry = this.fields[FIELD_INDEX.get(field)!]!;
      for (const value of values) {
        const ordinal = registry.ordinals.get(facetKey(value));
        if (ordinal !== undefined) registry.postings[ordinal]!.orInto(into);
      }
    };
    const slotsOf = (sets: Array<Set<number> | undefined>) => (into: Uint32Array) => {
      for (const set of sets) for (const s of set ?? []) into[s >>> 5]! |= 1 << (s & 31);
    };
    const anyOf = (field: SetField, values: string[] | undefined) => {
      if (values !== undefined) restrict(valuesOf(field, values));
    };
    if (scope?.market !== undefined) anyOf('markets', [EVERY_MARKET, scope.market]);
    if (scope?.pricelist !== undefined) anyOf('pricelists', [scope.pricelist]);
    if (f) {
      if (f.ids) restrict(slotsOf(f.ids.map((id) => this.byIdKey.get(facetKey(id)))));
      if (f.platformProducts) restrict(slotsOf(f.platformProducts.map((p) => this.byPlatformProduct.get(p))));
      anyOf('brand', f.brands);
      anyOf('collection', f.collections);
      anyOf('categoryTree', f.categories);
      anyOf('swatchDesc', f.swatchDescs);
      anyOf('itemNames', f.itemNames);
      anyOf('availableItemNames', f.availableItemNames);
      if (f.inStock !== undefined) anyOf('inStock', [String(f.inStock)]);
      if (f.uri) {
        const { ids, categories } = f.uri;
        restrict((into) => {
          slotsOf(ids.map((id) => this.byIdKey.get(facetKey(id))))(into);
          valuesOf('categoryTree', categories)(into);
        });
      }
      for (const [field, values] of Object.entries(f.extra ?? {}) as Array<[keyof NonNullable<SearchFilters['extra']>, string[]]>)
        anyOf(field, values);
    }
    return match;
  }

  /** The first `end` matches (no text) in the sort's order: a sort of the matches when few, else a walk of the cached whole order. */
  private firstMatches(match: Uint32Array, total: number, sort: SortKey[], end: number): Entry[] {
    if (end <= 0 || total === 0) return [];
    if (total <= SMALL_MATCH) {
      const entries = this.entriesOf(match);
      const keyed = entries.map((entry) => ({ entry, keys: sort.map((key) => sortValue(entry.doc, key)) }));
      return firstInOrder(keyed, end, (a, b) => compareKeys(a.keys, b.keys, sort) || a.entry.doc.productId - b.entry.doc.productId).map(
        (k) => k.entry,
      );
    }
    const { slots } = this.orderOf(sort);
    const page: Entry[] = [];
    for (let i = 0; i < slots.length && page.length < end; i++) {
      const s = slots[i]!;
      if ((match[s >>> 5]! & (1 << (s & 31))) !== 0) page.push(this.slots[s]!);
    }
    return page;
  }

  /** Every live document in the sort's order (its keys, then the id), computed once until the next write. */
  private orderOf(sort: SortKey[]): SortOrder {
    const key = JSON.stringify(sort);
    let order = this.orders.get(key);
    if (order) return order;
    const keyed = this.entriesOf(this.live).map((entry) => ({ entry, keys: sort.map((k) => sortValue(entry.doc, k)) }));
    keyed.sort((a, b) => compareKeys(a.keys, b.keys, sort) || a.entry.doc.productId - b.entry.doc.productId);
    order = { slots: Int32Array.from(keyed, (k) => k.entry.slot) };
    if (this.orders.size >= MAX_CACHED_ORDERS) this.orders.delete(this.orders.keys().next().value!);
    this.orders.set(key, order);
    return order;
  }

  private entriesOf(bits: Uint32Array): Entry[] {
    const entries: Entry[] = [];
    for (let w = 0; w < bits.length; w++) {
      let word = bits[w]!;
      while (word !== 0) {
        const low = word & -word;
        entries.push(this.slots[(w << 5) + (31 - Math.clz32(low))]!);
        word ^= low;
      }
    }
    return entries;
  }

  /**
   * A query's words as Meilisearch takes them: stop words left out, except the last word (the shopper may
   * still be typing it), which is kept as a prefix whatever it is.
   */
  private queryTerms(text: string): string[] {
    const terms = termsOf(text);
    const stop = this.settings.queryStopWords;
    if (stop.size === 0) return terms;
    return terms.filter((term, i) => i === terms.length - 1 || !stop.has(term));
  }

  /**
   * The query's parts: a run of up to three words that is a synonym's key (the longest first, left to
   * right) is one part, matched by its own words or by one of the synonym's alternatives; any other
   * word is a part of its own. As in Meilisearch, only words spelt as the key (no typo, not a prefix)
   * bring its alternatives.
   */
  private partsOf(terms: string[]): QueryPart[] {
    const parts: QueryPart[] = [];
    const synonyms = this.settings.synonyms;
    for (let i = 0; i < terms.length;) {
      let span = 1;
      let alternatives: string[][] = [];
      for (let len = Math.min(MAX_SYNONYM_WORDS, terms.length - i); len >= 1 && synonyms.size > 0; len--) {
        const found = synonyms.get(terms.slice(i, i + len).join(' '));
        if (found) {
          span = len;
          alternatives = found;
          break;
        }
      }
      const words = terms.slice(i, i + span).map((term, k) => this.candidatesOf(term, i + k === terms.length - 1));
      // An alternative with a word the index does not hold can match nothing.
      alternatives = alternatives.filter((alt) => alt.every((w) => this.vocabulary.get(String.fromCodePoint(w.codePointAt(0)!))?.has(w)));
      parts.push({ words, alternatives });
      i += span;
    }
    return parts;
  }

  /** The documents holding every part of the query (the last word as a prefix) among the matches, with what ranks them. */
  private match(terms: string[], match: Uint32Array): Hit[] {
    const parts = this.partsOf(terms);
    if (parts.some((p) => p.alternatives.length === 0 && p.words.some((c) => c.size === 0))) return [];
    // The same words (a popular search, the next page) reuse the hits until the index changes.
    const key = terms.join('\u0000');
    let results = this.textHits.get(key);
    if (!results) {
      const wordsQuery = (words: Array<Map<string, Kind>>): Query => ({
        combineWith: 'AND',
        queries: words.map((c) => ({ combineWith: 'OR', queries: [...c.keys()] })),
      });
      results = this.mini
        .search({
          combineWith: 'AND',
          queries: parts.map((p): Query => {
            const either: Query[] = p.alternatives.map((alt) => ({ combineWith: 'AND', queries: alt }));
            if (p.words.every((c) => c.size > 0)) either.unshift(wordsQuery(p.words));
            return { combineWith: 'OR', queries: either };
          }),
        })
        .map((r) => ({ id: String(r.id), score: r.score }));
      if (this.textHits.size >= 256) this.textHits.delete(this.textHits.keys().next().value!);
      this.textHits.set(key, results);
    }
    const hits: Hit[] = [];
    for (const r of results) {
      const entry = this.docs.get(r.id);
      // Filter first: ranking details cost a walk over the document's words.
      if (!entry || (match[entry.slot >>> 5]! & (1 << (entry.slot & 31))) === 0) continue;
      const hit = this.rankingOf(entry, r.score, parts);
      if (hit) hits.push(hit);
    }
    return hits;
  }

  /**
   * What ranks a document that MiniSearch found: typos, proximity and the best attribute of the words it
   * matched; undefined when a part matched only through a synonym's words that do not stand together.
   */
  private rankingOf(entry: Entry, score: number, parts: QueryPart[]): Hit | undefined {
    const doc = entry.doc;
    const tokens = this.tokens.get(doc.id) ?? [];
    let typos = 0;
    let attribute = Number.MAX_SAFE_INTEGER;
    const positions: number[][] = [];
    for (const part of parts) {
      const matched = part.words.map((c) => tokens.filter((t) => c.has(t.term)));
      const byWords = matched.every((m) => m.length > 0);
      // An alternative matches where its words stand one after the other in one attribute.
      const phrases: Token[][] = [];
      for (const alt of part.alternatives) {
        for (const first of tokens) {
          if (first.term !== alt[0]) continue;
          const run = [first];
          for (let k = 1; k < alt.length; k++) {
            const next = tokens.find((t) => t.pos === first.pos + k && t.term === alt[k]);
            if (!next) break;
            run.push(next);
          }
          if (run.length === alt.length) phrases.push(run);
        }
      }
      if (!byWords && phrases.length === 0) return undefined;
      let partTypos = 0;
      if (byWords) {
        part.words.forEach((c, k) => {
          if (!matched[k]!.some((t) => c.get(t.term) !== 'typo')) partTypos++;
        });
      }
      if (phrases.length > 0) partTypos = 0;
      typos += partTypos;
      const used = [...(byWords ? matched.flat() : []), ...phrases.flat()];
      for (const t of used) attribute = Math.min(attribute, t.attr);
      if (byWords) for (const m of matched) positions.push(m.map((t) => t.pos));
      else positions.push(phrases.flatMap((run) => run.map((t) => t.pos)));
    }
    let proximity = 0;
    for (let i = 1; i < positions.length; i++) {
      let best = MAX_PROXIMITY;
      for (const p of positions[i - 1]!) for (const q of positions[i]!) best = Math.min(best, q > p ? q - p : p - q + 1);
      proximity += best;
    }
    return { entry, doc, score, typos, proximity, attribute, keys: [] };
  }

  private candidatesOf(term: string, isLast: boolean): Map<string, Kind> {
    const key = `${isLast ? 1 : 0}${term}`;
    const known = this.candidates.get(key);
    if (known) return known;
    const found = new Map<string, Kind>();
    const chars = [...term];
    for (const word of this.vocabulary.get(chars[0]!)?.keys() ?? []) {
      const kind = matchKind(chars, [...word], isLast);
      if (kind) found.set(word, kind);
    }
    if (this.candidates.size >= 10_000) this.candidates.clear();
    this.candidates.set(key, found);
    return found;
  }

  /** A new document: a slot, and its values registered and added to their sets. */
  private addOne(doc: SearchDoc): void {
    const slot = this.freeSlots.pop() ?? this.slots.length;
    const values = SET_FIELDS.map((field, f) => {
      const registry = this.fields[f]!;
      const ordinals: number[] = [];
      for (const value of valuesOf(doc, field)) {
        // An empty value is kept for filters (as the other engine compares it) but never shown as a facet value.
        const key = facetKey(value);
        let ordinal = registry.ordinals.get(key);
        if (ordinal === undefined) {
          ordinal = registry.shown.length;
          registry.ordinals.set(key, ordinal);
          registry.shown.push(value);
          registry.postings.push(new Posting());
        }
        // A document counts once per value, however often its list holds it.
        if (!ordinals.includes(ordinal)) {
          ordinals.push(ordinal);
          registry.postings[ordinal]!.add(slot);
        }
      }
      return ordinals;
    });
    const entry: Entry = { doc, slot, values };
    this.docs.set(doc.id, entry);
    this.slots[slot] = entry;
    if (slot >>> 5 >= this.live.length) {
      const grown = new Uint32Array(Math.max((slot >>> 5) + 1, this.live.length * 2));
      grown.set(this.live);
      this.live = grown;
    }
    this.live[slot >>> 5]! |= 1 << (slot & 31);
    setOf(this.byPlatformProduct, doc.platformProduct).add(slot);
    setOf(this.byIdKey, facetKey(doc.id)).add(slot);
  }

  /**
   * Documents per value over the matches; values that differ only in case are one. A few matches tally
   * their own values; many are counted per value, a popcount over the matches' non-zero words.
   */
  private facetCounts(match: Uint32Array, total: number, facets: FacetField[]): FacetCounts {
    const wanted = facets.map((facet) => FIELD_INDEX.get(facet)).filter((f): f is number => f !== undefined);
    const valueCount = wanted.reduce((n, f) => n + this.fields[f]!.shown.length, 0);
    const words: number[] = [];
    for (let w = 0; w < match.length; w++) if (match[w] !== 0) words.push(w);
    const tallies = wanted.map((f) => new Uint32Array(this.fields[f]!.shown.length));
    // Measured: a match's tally costs about as much as 64 words of popcounts.
    if (total * 64 < valueCount * words.length) {
      for (const { values } of this.entriesOf(match)) {
        for (let w = 0; w < wanted.length; w++) {
          const ordinals = values[wanted[w]!]!;
          const tally = tallies[w]!;
          for (let i = 0; i < ordinals.length; i++) tally[ordinals[i]!]!++;
        }
      }
    } else {
      const nonZero = Int32Array.from(words);
      wanted.forEach((f, w) => {
        const postings = this.fields[f]!.postings;
        const tally = tallies[w]!;
        for (let o = 0; o < postings.length; o++) if (postings[o]!.size > 0) tally[o] = postings[o]!.countIn(match, nonZero);
      });
    }
    const counts: FacetCounts = {};
    wanted.forEach((f, w) => {
      const { shown, ordinals } = this.fields[f]!;
      const empty = ordinals.get('');
      const values: Record<string, number> = {};
      tallies[w]!.forEach((n, ordinal) => {
        if (n > 0 && ordinal !== empty) values[shown[ordinal]!] = n;
      });
      counts[SET_FIELDS[f] as FacetField] = values;
    });
    return counts;
  }

  /** Any write: cached totals and orders are stale. */
  private changed(): void {
    this.totals.clear();
    this.textHits.clear();
    this.orders.clear();
  }

  private removeOne(id: string): void {
    const entry = this.docs.get(id);
    if (!entry) return;
    for (const term of new Set((this.tokens.get(id) ?? []).map((t) => t.term))) this.addWord(term, -1);
    this.mini.discard(id);
    const { slot, values, doc } = entry;
    values.forEach((ordinals, f) => {
      for (const o of ordinals) this.fields[f]!.postings[o]!.delete(slot);
    });
    this.live[slot >>> 5]! &= ~(1 << (slot & 31));
    this.byPlatformProduct.get(doc.platformProduct)?.delete(slot);
    if (this.byPlatformProduct.get(doc.platformProduct)?.size === 0) this.byPlatformProduct.delete(doc.platformProduct);
    const idKey = facetKey(doc.id);
    this.byIdKey.get(idKey)?.delete(slot);
    if (this.byIdKey.get(idKey)?.size === 0) this.byIdKey.delete(idKey);
    this.slots[slot] = undefined;
    this.freeSlots.push(slot);
    this.docs.delete(id);
    this.tokens.delete(id);
  }

  private addWord(term: string, delta: number): void {
    const first = String.fromCodePoint(term.codePointAt(0)!); // the first character, a surrogate pair whole
    const group = this.vocabulary.get(first) ?? new Map<string, number>();
    const n = (group.get(term) ?? 0) + delta;
    // A word new to the index, or gone from it, changes what query words match.
    if (n > 0 !== group.has(term)) this.candidates.clear();
    if (n > 0) group.set(term, n);
    else group.delete(term);
    if (group.size > 0) this.vocabulary.set(first, group);
    else this.vocabulary.delete(first);
  }
}

function setOf<K>(map: Map<K, Set<number>>, key: K): Set<number> {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  return set;
}

export const createEmbeddedSearchIndex = (settings?: SearchSettings): SearchIndex => new MiniSearchIndex(settings);
