import { slugify, uniqueSlug } from './slug';

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
  it('falls back to "item" for a name without letters', async () => {
    expect(await uniqueSlug('', null, async () => false)).toBe('item');
  });
});
