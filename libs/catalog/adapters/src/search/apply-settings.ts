import type { ReindexProgress } from '@commerce/catalog-core';
import type { MeiliSearchIndex } from './meilisearch.search-index';
import {
  compareToBaseline,
  DEFAULT_TOLERANCE,
  evaluate,
  reportOf,
  type Comparison,
  type EngineReport,
  type Judgements,
  type Tolerance,
} from './relevance';

/**
 * `npm run search:apply` (docs/search.md): a settings change goes live without a failed search. The
 * settings file is compared with the live index, a new index is built beside the live one with the new
 * settings and every product, the judged queries run on both, and the new index is swapped in only when
 * asked (`swap`) or when its report is not worse than the live one's (`swap-if-better`); `report-only`
 * deletes it. Searches on the live index are answered throughout: Meilisearch's index swap is atomic.
 */
export type ApplyMode = 'report-only' | 'swap' | 'swap-if-better';

export interface SettingChange {
  setting: string;
  live: unknown;
  file: unknown;
}

/** Settings whose lists are sets: Meilisearch may give them back in another order. */
const SET_LIKE = new Set([
  'stopWords',
  'sortableAttributes',
  'disableOnWords',
  'disableOnAttributes',
  'nonSeparatorTokens',
  'separatorTokens',
  'dictionary',
]);

function canonical(value: unknown, key = '', parent = ''): unknown {
  if (Array.isArray(value)) {
    const items = value.map((v) => canonical(v, '', key));
    // A synonym's alternatives are a set too.
    return SET_LIKE.has(key) || parent === 'synonyms'
      ? items
          .map((i) => JSON.stringify(i))
          .sort()
          .map((i) => JSON.parse(i) as unknown)
      : items;
  }
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k], k, key)]),
    );
  }
  return value;
}

/** The part of `live` that `file` says something about: the keys of the file's objects (Meilisearch adds its defaults). */
function shapedLike(live: unknown, file: unknown): unknown {
  const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
  // Synonyms are compared whole: a key the file drops is a change.
  if (!isObject(live) || !isObject(file)) return live;
  return Object.fromEntries(Object.keys(file).map((k) => [k, shapedLike(live[k], file[k])]));
}

/** The settings of the file that differ from the live index's (settings and fields the file leaves out are not compared). */
export function settingsDiff(live: Record<string, unknown>, file: Record<string, unknown>): SettingChange[] {
  return Object.keys(file)
    .map((setting) => ({
      setting,
      live: setting === 'synonyms' ? live[setting] : shapedLike(live[setting], file[setting]),
      file: file[setting],
    }))
    .filter((c) => JSON.stringify(canonical(c.live, c.setting)) !== JSON.stringify(canonical(c.file, c.setting)));
}

export interface ApplyOptions {
  live: MeiliSearchIndex;
  settings: Record<string, unknown>;
  mode: ApplyMode;
  /** Writes every product into the new index, telling its progress. */
  fill: (staging: MeiliSearchIndex, onProgress: (p: ReindexProgress) => void) => Promise<ReindexProgress>;
  judgements: Judgements;
  /** Variant id → ERP product id (the judgements grade products). */
  productOf: ReadonlyMap<string, string>;
  /** How far the new index may fall below the live one for `swap-if-better` (default the baseline's). */
  tolerance?: Tolerance;
  onProgress?: (p: ReindexProgress) => void;
  onStep?: (step: string) => void;
}

export interface ApplyResult {
  changes: SettingChange[];
  stagingIndex: string;
  progress: ReindexProgress;
  live: EngineReport;
  next: EngineReport;
  /** The new index against the live one (the live one as the baseline). */
  comparison: Comparison;
  swapped: boolean;
}

export async function applySearchSettings(options: ApplyOptions): Promise<ApplyResult> {
  const { live, settings, mode } = options;
  const step = options.onStep ?? (() => undefined);
  const current = await live.settings();
  const changes = settingsDiff(current ?? {}, settings);
  const staging = await live.createStaging(settings);
  step(`staging ${staging.indexName}`);
  let swapped = false;
  try {
    const progress = await options.fill(staging, options.onProgress ?? (() => undefined));
    step('evaluate');
    // No live index yet: nothing to compare with, every metric of the new one is a gain.
    const liveReport = reportOf(current ? await evaluate(live, options.judgements, options.productOf) : []);
    const nextReport = reportOf(await evaluate(staging, options.judgements, options.productOf));
    const comparison = current
      ? compareToBaseline(
          { meilisearch: nextReport },
          { tolerance: options.tolerance ?? DEFAULT_TOLERANCE, engines: { meilisearch: liveReport } },
        )
      : { regressions: [], worse: [], better: [] };
    if (mode === 'swap' || (mode === 'swap-if-better' && comparison.regressions.length === 0)) {
      step('swap');
      await live.swapIn(staging);
      swapped = true;
      step('done');
    }
    return { changes, stagingIndex: staging.indexName, progress, live: liveReport, next: nextReport, comparison, swapped };
  } finally {
    // Not swapped (a report, a worse report, a failure): the new index goes; the live one is as it was.
    if (!swapped) await staging.deleteIndex().catch(() => undefined);
  }
}

/** `[#########.....] 1200/5000 products  24%  350/s  ETA 11 s` */
export function progressLine({ done, total }: ReindexProgress, elapsedMs: number): string {
  const width = 30;
  const share = total > 0 ? Math.min(1, done / total) : 1;
  const filled = Math.round(share * width);
  const rate = elapsedMs > 0 ? (done * 1000) / elapsedMs : 0;
  const eta = rate > 0 && total > done ? `ETA ${Math.ceil((total - done) / rate)} s` : done >= total ? 'done' : 'ETA -';
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} products  ${Math.round(share * 100)}%  ${Math.round(rate)}/s  ${eta}`;
}
