/**
 * What shoppers search for (issue 26): each text search of the listing is counted by its normalised
 * query, market and language, and whether it found nothing. Nothing that names the shopper is kept: no
 * token, customer, address or time finer than the day, and a query that looks like an e-mail address or a
 * phone number is counted as `<personal>` (docs/search.md, "What shoppers search for").
 */
export interface SearchQueryEvent {
  /** As the shopper typed it; normalised by the recorder. */
  text: string;
  market: string;
  language: string;
  /** Products found. */
  found: number;
}

export interface SearchQueryLog {
  /** Counts one search; never throws and never waits (the listing's answer does not depend on it). */
  record(event: SearchQueryEvent): void;
}

/** The longest normalised query kept, in characters. */
export const MAX_QUERY_CHARS = 80;

const EMAIL = /[^\s@]+@[^\s@]+\.[^\s@]+/u;
// A phone number: 7 or more digits with the separators people type between them, not an EAN or SKU
// (those have no separators, and a shopper searching one is looking for a product).
const PHONE = /(?:\+|00)?\d[\d ().-]{6,}\d/u;

/**
 * The query as it is counted: trimmed, inner whitespace collapsed, lower case, cut at MAX_QUERY_CHARS;
 * `<personal>` for what looks like an e-mail address or a phone number written with separators; empty for
 * no text.
 */
export function normaliseSearchQuery(text: string): string {
  const q = text.normalize('NFC').trim().replace(/\s+/gu, ' ').toLowerCase();
  if (q === '') return '';
  if (EMAIL.test(q)) return '<personal>';
  const phone = PHONE.exec(q);
  if (phone && /[ ().-]/u.test(phone[0])) return '<personal>';
  return [...q].slice(0, MAX_QUERY_CHARS).join('');
}
