import type { SearchDoc, SortKey } from '@commerce/catalog-core';
import type { Entry } from './minisearch-documents';
import type { RankingRule } from './search-settings';

// The embedded index's order of hits: Meilisearch's ranking rules, its sort of values, and a page without a full sort.

export type SortValue = number | string | undefined;

/** A text hit: its document and what the ranking rules compare. */
export interface Hit {
  entry: Entry;
  doc: SearchDoc;
  score: number;
  typos: number;
  proximity: number;
  attribute: number;
  /** The document's values of the query's sort keys, read once. */
  keys: SortValue[];
}

export function sortValue(doc: SearchDoc, key: SortKey): SortValue {
  if (key.field === 'price') return doc.prices[key.pricelist];
  const v = doc[key.field];
  // Meilisearch sorts strings by their lower case and treats an empty one as no value.
  return typeof v === 'string' ? v.toLowerCase() || undefined : v;
}

/**
 * The order of text hits by the settings' ranking rules: `words` ranks nothing (every word is required),
 * `sort` is the query's sort, `exactness` MiniSearch's score, `<field>:asc|desc` the document's value;
 * ties last by id, so that both engines' ties come out the same way.
 */
export function ranking(rules: RankingRule[]): (a: Hit, b: Hit, sort: SortKey[]) => number {
  const steps = rules.flatMap((rule): Array<(a: Hit, b: Hit, sort: SortKey[]) => number> => {
    if (typeof rule === 'object') {
      const field = rule.field as keyof SearchDoc;
      const key = [{ field, order: rule.order }] as unknown as SortKey[];
      return [(a, b) => compareKeys([customValue(a.doc, field)], [customValue(b.doc, field)], key)];
    }
    switch (rule) {
      case 'sort':
        return [(a, b, sort) => compareKeys(a.keys, b.keys, sort)];
      case 'typo':
        return [(a, b) => a.typos - b.typos];
      case 'proximity':
        return [(a, b) => a.proximity - b.proximity];
      case 'attribute':
        return [(a, b) => a.attribute - b.attribute];
      case 'exactness':
        return [(a, b) => b.score - a.score];
      default:
        return [];
    }
  });
  return (a, b, sort) => {
    for (const step of steps) {
      const c = step(a, b, sort);
      if (c !== 0) return c;
    }
    return a.doc.productId - b.doc.productId;
  };
}

function customValue(doc: SearchDoc, field: keyof SearchDoc): SortValue {
  const v = doc[field];
  return typeof v === 'number' ? v : typeof v === 'string' ? v.toLowerCase() || undefined : undefined;
}

/** Like Meilisearch, a document without the value comes after those with one, in either order. */
export function compareKeys(a: SortValue[], b: SortValue[], sort: SortKey[]): number {
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
