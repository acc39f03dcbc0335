/**
 * Tokenising and normalising text the way Meilisearch's tokenizer (charabia) does for the cases the
 * shared suite pins: words are runs of letters, digits and marks of any script; case and diacritics
 * fold (NFD, marks stripped); Chinese and Japanese, written without spaces, are split per character so
 * that a word inside a run still matches (Meilisearch segments them into words by dictionary).
 */
const WORD = /[\p{L}\p{N}\p{M}]+/gu;
const CJK_RUNS = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|[^\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]+/gu;
const HAS_CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const NON_ASCII = /[\u0080-\uffff]/;

export function tokenize(text: string): string[] {
  const words = text.match(WORD) ?? [];
  // A text without Chinese or Japanese: every word is one run already (most of a catalogue's text).
  if (!HAS_CJK.test(text)) return words;
  return words.flatMap((w) => w.match(CJK_RUNS) ?? []);
}

/** Folded terms by term, for the non-ASCII ones (a catalogue's names repeat: brands, colours, sizes). */
const folded = new Map<string, string>();

export function normalizeTerm(term: string): string {
  // ASCII has no decomposition and no marks: NFD and the marks' removal leave it as it is.
  if (!NON_ASCII.test(term)) return term.toLowerCase();
  let result = folded.get(term);
  if (result === undefined) {
    result = term
      .normalize('NFD')
      .replace(/\p{M}+/gu, '')
      .toLowerCase()
      // Ligatures fold to their letters, as Meilisearch folds them (soeur finds Sœur); ß stays ß there too.
      .replace(/œ/gu, 'oe')
      .replace(/æ/gu, 'ae');
    if (folded.size >= 100_000) folded.clear();
    folded.set(term, result);
  }
  return result;
}

/** Every normalised term of a text, in order; words written as one of `skip` (stop words) are left out. */
export const termsOf = (text: string, skip?: ReadonlySet<string>): string[] => {
  const terms: string[] = [];
  for (const word of tokenize(text)) {
    if (skip && skip.size > 0 && skip.has(word)) continue;
    const term = normalizeTerm(word);
    if (term.length > 0) terms.push(term);
  }
  return terms;
};

/** Words of this many characters or more tolerate one typo; shorter ones must match exactly (DESIGN §4). */
export const MIN_WORD_SIZE_FOR_TYPO = 4;

/**
 * True when a and b (arrays of code points) differ by at most one insertion, deletion, substitution or
 * swap of two letters side by side (Meilisearch counts a swap as one typo).
 */
export function withinOneEdit(a: string[], b: string[]): boolean {
  if (Math.abs(a.length - b.length) > 1) return false;
  if (a.length === b.length) {
    const first = a.findIndex((c, k) => c !== b[k]);
    if (first >= 0 && first + 1 < a.length && a[first] === b[first + 1] && a[first + 1] === b[first]) {
      if (a.slice(first + 2).every((c, k) => c === b[first + 2 + k])) return true;
    }
  }
  let i = 0;
  let j = 0;
  let edits = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      i++;
      j++;
      continue;
    }
    if (++edits > 1) return false;
    if (a.length > b.length) i++;
    else if (a.length < b.length) j++;
    else {
      i++;
      j++;
    }
  }
  return edits + (a.length - i) + (b.length - j) <= 1;
}

/**
 * How a query term matches an indexed word: `exact`, `prefix` (last query word only), `typo` (one edit or
 * swap, never on the first letter, which Meilisearch counts as two typos), or null.
 */
export function matchKind(term: string[], word: string[], isLast: boolean): 'exact' | 'prefix' | 'typo' | null {
  if (term.length === word.length && term.every((c, k) => c === word[k])) return 'exact';
  if (isLast && word.length > term.length && term.every((c, k) => c === word[k])) return 'prefix';
  if (term.length < MIN_WORD_SIZE_FOR_TYPO || term[0] !== word[0]) return null;
  if (withinOneEdit(term, word)) return 'typo';
  if (isLast) {
    // A prefix with one typo: some prefix of the word is within one edit of the term.
    for (const len of [term.length - 1, term.length, term.length + 1]) {
      if (len > 0 && len < word.length && withinOneEdit(term, word.slice(0, len))) return 'typo';
    }
  }
  return null;
}
