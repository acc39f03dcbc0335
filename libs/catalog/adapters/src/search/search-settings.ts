import { SEARCHABLE_ATTRIBUTES } from '@commerce/catalog-core';
import { z } from 'zod';
import { termsOf } from './search-text';

/**
 * The parts of `infra/meilisearch/settings.json` that decide which documents a text query finds and in
 * what order, as the embedded engine follows them (docs/search.md). Meilisearch reads the file as it is;
 * here it is read once at start-up, and whatever the embedded engine cannot follow is named by
 * `unfollowed` so that start-up says so in one line instead of the engines differing silently.
 */
const SettingsSchema = z
  .object({
    searchableAttributes: z.array(z.string()).optional(),
    rankingRules: z.array(z.string()).optional(),
    distinctAttribute: z.string().nullable().optional(),
    stopWords: z.array(z.string()).optional(),
    synonyms: z.record(z.string(), z.array(z.string())).optional(),
    proximityPrecision: z.string().optional(),
    typoTolerance: z
      .object({
        enabled: z.boolean().optional(),
        minWordSizeForTypos: z.object({ oneTypo: z.number().optional(), twoTypos: z.number().optional() }).optional(),
        disableOnWords: z.array(z.string()).optional(),
        disableOnAttributes: z.array(z.string()).optional(),
        disableOnNumbers: z.boolean().optional(),
      })
      .optional(),
  })
  .passthrough();

/** The ranking rules the embedded engine knows; `<field>:asc|desc` on a number field is followed too. */
export const BUILT_IN_RANKING_RULES = ['words', 'sort', 'typo', 'proximity', 'attribute', 'exactness'] as const;
export type BuiltInRankingRule = (typeof BUILT_IN_RANKING_RULES)[number];
export type RankingRule = BuiltInRankingRule | { field: string; order: 'asc' | 'desc' };

export interface SearchSettings {
  /** Normalised key (its terms joined by one space) → the alternatives, each a list of normalised terms. */
  synonyms: Map<string, string[][]>;
  /** The stop words as written (a document's word is left out only when written the same way, as Meilisearch does). */
  stopWords: Set<string>;
  /** The stop words normalised as query words are. */
  queryStopWords: Set<string>;
  rankingRules: RankingRule[];
  /** What the embedded engine does not follow, one phrase each (empty: the engines agree). */
  unfollowed: string[];
}

export const DEFAULT_RANKING_RULES: RankingRule[] = [...BUILT_IN_RANKING_RULES];

export const emptySearchSettings = (): SearchSettings => ({
  synonyms: new Map(),
  stopWords: new Set(),
  queryStopWords: new Set(),
  rankingRules: DEFAULT_RANKING_RULES,
  unfollowed: [],
});

/** Longest synonym key, in words, that a query is scanned for (Meilisearch's limit too). */
export const MAX_SYNONYM_WORDS = 3;

const CUSTOM_RULE = /^([A-Za-z_][\w.]*):(asc|desc)$/;

/** The search settings of a settings file (as `loadMeiliSettings` reads it); throws on a malformed one. */
export function parseSearchSettings(raw: Record<string, unknown>): SearchSettings {
  const s = SettingsSchema.parse(raw);
  const unfollowed: string[] = [];

  const synonyms = new Map<string, string[][]>();
  for (const [key, values] of Object.entries(s.synonyms ?? {})) {
    const keyTerms = termsOf(key);
    if (keyTerms.length === 0) continue;
    if (keyTerms.length > MAX_SYNONYM_WORDS) unfollowed.push(`synonym "${key}" (more than ${MAX_SYNONYM_WORDS} words)`);
    const normalised = keyTerms.join(' ');
    const list = synonyms.get(normalised) ?? [];
    for (const value of values) {
      const terms = termsOf(value);
      if (terms.length > 0 && !list.some((l) => l.join(' ') === terms.join(' '))) list.push(terms);
    }
    synonyms.set(normalised, list);
  }

  const stopWords = new Set(s.stopWords ?? []);
  const queryStopWords = new Set([...stopWords].flatMap((w) => termsOf(w)));

  const rankingRules: RankingRule[] = [];
  for (const rule of s.rankingRules ?? [...BUILT_IN_RANKING_RULES]) {
    const custom = CUSTOM_RULE.exec(rule);
    if ((BUILT_IN_RANKING_RULES as readonly string[]).includes(rule)) rankingRules.push(rule as BuiltInRankingRule);
    else if (custom) rankingRules.push({ field: custom[1]!, order: custom[2] as 'asc' | 'desc' });
    else unfollowed.push(`ranking rule "${rule}"`);
  }
  // Meilisearch adds a built-in rule left out of the list at its end; so does the embedded engine.
  for (const rule of BUILT_IN_RANKING_RULES) if (!rankingRules.includes(rule)) rankingRules.push(rule);

  if (s.distinctAttribute) unfollowed.push(`distinctAttribute "${s.distinctAttribute}"`);
  const searchable = s.searchableAttributes;
  if (searchable && !(searchable.length === 1 && searchable[0] === '*') && searchable.join() !== SEARCHABLE_ATTRIBUTES.join())
    unfollowed.push(`searchableAttributes ${JSON.stringify(searchable)} (it searches ${JSON.stringify(SEARCHABLE_ATTRIBUTES)})`);
  if (s.proximityPrecision && s.proximityPrecision !== 'byWord') unfollowed.push(`proximityPrecision "${s.proximityPrecision}"`);
  // Meilisearch's defaults when the file leaves them out: one typo from 5 characters, two from 9.
  const typo = s.typoTolerance ?? {};
  {
    const one = typo.minWordSizeForTypos?.oneTypo ?? 5;
    const two = typo.minWordSizeForTypos?.twoTypos ?? 9;
    if (typo.enabled === false) unfollowed.push('typoTolerance.enabled false');
    if (one !== 4) unfollowed.push(`typoTolerance.minWordSizeForTypos.oneTypo ${one} (it allows one typo from 4 characters)`);
    if (two < 100) unfollowed.push(`typoTolerance.minWordSizeForTypos.twoTypos ${two} (it never allows two typos)`);
    if ((typo.disableOnWords ?? []).length > 0) unfollowed.push('typoTolerance.disableOnWords');
    if ((typo.disableOnAttributes ?? []).length > 0) unfollowed.push('typoTolerance.disableOnAttributes');
  }
  return { synonyms, stopWords, queryStopWords, rankingRules, unfollowed };
}

/** The one start-up line naming what the embedded engine does not follow, or undefined when it follows everything. */
export function unfollowedSettingsLine(settings: SearchSettings, file: string): string | undefined {
  if (settings.unfollowed.length === 0) return undefined;
  return `search: the embedded engine does not follow ${settings.unfollowed.join('; ')} from ${file}: results differ from Meilisearch's there`;
}
