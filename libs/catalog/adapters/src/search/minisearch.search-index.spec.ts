import { firstInOrder } from './minisearch-ranking';
import { MiniSearchIndex } from './minisearch.search-index';
import { searchIndexContract } from './search-index.contract';
import { parseSearchSettings } from './search-settings';

describe('embedded search index (MiniSearch) matching rules', () => {
  searchIndexContract(async (settings) => new MiniSearchIndex(settings ? parseSearchSettings(settings) : undefined));
});

describe('firstInOrder (a page without sorting every match)', () => {
  it('gives the same first k as a full sort, ties kept in order by the comparator', () => {
    let seed = 42;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const items = Array.from({ length: 2_000 }, (_, i) => ({ i, v: Math.floor(random() * 50) }));
    const compare = (a: { i: number; v: number }, b: { i: number; v: number }) => a.v - b.v || a.i - b.i;
    const sorted = [...items].sort(compare);
    for (const k of [0, 1, 7, 24, 499, 500, 501, 1_999, 2_000, 5_000]) expect(firstInOrder(items, k, compare)).toEqual(sorted.slice(0, k));
  });
});
