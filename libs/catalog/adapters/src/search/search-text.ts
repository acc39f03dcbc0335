/**
 * Tokenising and normalising text the way Meilisearch's tokenizer (charabia) does for the cases the
 * shared suite pins: words are runs of letters, digits and marks of any script; case and diacritics
 * fold (NFD, marks stripped); Chinese and Japanese, written without spaces, are split per character so
 * that a word inside a run still matches (Meilisearch segments them into words by dictionary).
 */
const WORD = /[\p{L}\p{N}\p{M}]+/gu;
const CJK_RUNS = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|[^\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]+/gu;

export function tokenize(text: string): string[] {
  const words = text.match(WORD) ?? [];
  return words.flatMap((w) => w.match(CJK_RUNS) ?? []);
}

export function normalizeTerm(term: string): string {
  return term
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
}

/** Every normalised term of a text, in order. */
export const termsOf = (text: string): string[] =>
  tokenize(text)
    .map(normalizeTerm)
    .filter((t) => t.length > 0);

/** Words of this many characters or more tolerate one typo; shorter ones must match exactly (DESIGN §4). */
export const MIN_WORD_SIZE_FOR_TYPO = 4;

/** True when a and b (arrays of code points) differ by at most one insertion, deletion or substitution. */
export function withinOneEdit(a: string[], b: string[]): boolean {
  if (Math.abs(a.length - b.length) > 1) return false;
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
 * How a query term matches an indexed word: `exact`, `prefix` (last query word only), `typo` (one edit,
 * never on the first letter, which Meilisearch counts as two typos), or null.
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
