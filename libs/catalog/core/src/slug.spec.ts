import { SuffixRuns, slugSuffix, slugify, uniqueSlug } from './slug';

describe('slugify', () => {
  it('folds diacritics and case and joins words with hyphens', () => {
    expect(slugify('Café Sweater')).toBe('cafe-sweater');
    expect(slugify('  Naïve   Knit -- Cardigan! ')).toBe('naive-knit-cardigan');
  });
  it('keeps letters of other scripts', () => {
    expect(slugify('Платье летнее')).toBe('платье-летнее');
    expect(slugify('Silk 連衣裙')).toBe('silk-連衣裙');
  });
});

describe('uniqueSlug', () => {
  it('adds -2, -3 … until the slug is free', async () => {
    const taken = new Set(['cafe-sweater', 'cafe-sweater-2']);
    expect(await uniqueSlug('cafe-sweater', null, async (u) => taken.has(u))).toBe('cafe-sweater-3');
  });
  it('keeps the current slug when it still derives from the same name', async () => {
    expect(await uniqueSlug('cafe-sweater', 'cafe-sweater-2', async () => true)).toBe('cafe-sweater-2');
  });
  it('with where the taken suffixes end, asks once for the name and once for the next suffix', async () => {
    const taken = new Set(['t-shirt', ...Array.from({ length: 999 }, (_, i) => `t-shirt-${i + 2}`)]);
    const asked: string[] = [];
    const check = async (u: string) => (asked.push(u), taken.has(u));
    expect(await uniqueSlug('t-shirt', null, check, async () => 1000)).toBe('t-shirt-1001');
    expect(asked).toEqual(['t-shirt', 't-shirt-1001']);
    // The name itself free: no suffix asked for.
    expect(
      await uniqueSlug(
        'polo',
        null,
        async () => false,
        async () => 7,
      ),
    ).toBe('polo');
  });
  it('takes the hint as where to start only: a suffix taken past it is skipped, none below 2 is made', async () => {
    const taken = new Set(['t-shirt', 't-shirt-2', 't-shirt-3', 't-shirt-4']);
    expect(
      await uniqueSlug(
        't-shirt',
        null,
        async (u) => taken.has(u),
        async () => 2,
      ),
    ).toBe('t-shirt-5');
    expect(
      await uniqueSlug(
        't-shirt',
        null,
        async (u) => u === 't-shirt',
        async () => 0,
      ),
    ).toBe('t-shirt-2');
  });
  it('falls back to "item" for a name without letters', async () => {
    expect(await uniqueSlug('', null, async () => false)).toBe('item');
  });
});

describe('slugSuffix', () => {
  it('splits a slug into its stem and suffix, 1 without one', () => {
    expect(slugSuffix('t-shirt-12')).toEqual(['t-shirt', 12]);
    expect(slugSuffix('t-shirt')).toEqual(['t-shirt', 1]);
    expect(slugSuffix('jacket-2024-2')).toEqual(['jacket-2024', 2]);
  });
});

describe('SuffixRuns', () => {
  it("ends each stem's run where its first missing suffix is, whatever order the URIs come in", () => {
    const runs = new SuffixRuns();
    expect(runs.end('acme')).toBe(0);
    for (const uri of ['acme-3', 'acme-2024', 'acme-2', 'other']) runs.note(uri);
    // No `acme` itself yet: the run from 1 has not begun.
    expect(runs.end('acme')).toBe(0);
    runs.note('acme');
    expect(runs.end('acme')).toBe(3);
    runs.note('acme-5');
    expect(runs.end('acme')).toBe(3);
    runs.note('acme-4');
    expect([runs.end('acme'), runs.end('other'), runs.end('acme-2024')]).toEqual([5, 1, 0]);
  });
});
