import { normalizeTerm, termsOf, tokenize } from './search-text';

// The rules as they were written before the ASCII and no-CJK shortcuts: the shortcuts must give the same terms.
const WORD = /[\p{L}\p{N}\p{M}]+/gu;
const CJK_RUNS = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|[^\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]+/gu;
const referenceTokenize = (text: string): string[] => (text.match(WORD) ?? []).flatMap((w) => w.match(CJK_RUNS) ?? []);
const referenceNormalize = (term: string): string =>
  term
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
const referenceTerms = (text: string): string[] =>
  referenceTokenize(text)
    .map(referenceNormalize)
    .filter((t) => t.length > 0);

const TEXTS = [
  '',
  'Relaxed Denim Jacket Nº 7',
  'Brand 12 Ådalen',
  'Crème BRÛLÉE café-au-lait',
  'T-shirt 32x34 XL/XXL',
  'İstanbul Straße ǅemal',
  'e\u0301 combining, a\u0300\u0301 twice',
  'ヴィンテージ デニム ジャケット',
  '東京タワー Tokyo 2026',
  '日本語とEnglish混在テキスト',
  'emoji 👕 shirt \u{1F600}',
  'tab\tnew\nline\u00a0nbsp',
  'ß ẞ ﬁ ligature',
  'Ελληνικά ΚΕΦΑΛΑΙΑ Русский ТЕКСТ',
  '한국어 텍스트',
  '\u0301\u0301 marks alone',
];

describe('search text', () => {
  it.each(TEXTS)('tokenises and folds %j as the reference rules do', (text) => {
    expect(tokenize(text)).toEqual(referenceTokenize(text));
    expect(termsOf(text)).toEqual(referenceTerms(text));
    for (const word of referenceTokenize(text)) expect(normalizeTerm(word)).toBe(referenceNormalize(word));
  });

  it('folds a repeated non-ASCII term the same way every time', () => {
    expect(normalizeTerm('Ådalen')).toBe('adalen');
    expect(normalizeTerm('Ådalen')).toBe('adalen');
    expect(normalizeTerm('ÅDALEN')).toBe('adalen');
  });

  it('splits Chinese and Japanese runs per character, and leaves other words whole', () => {
    expect(tokenize('abc東京def')).toEqual(['abc', '東', '京', 'def']);
    expect(tokenize('Relaxed Denim')).toEqual(['Relaxed', 'Denim']);
  });
});
