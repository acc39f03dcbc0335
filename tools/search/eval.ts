// The relevance report of the search team (issue 26, docs/search.md): every judged query of
// infra/search/judgements.json through the catalog's search port, on the embedded engine and, when MEILI_URL
// is set, on Meilisearch (an index of its own, search_eval_<time>, deleted at the end), against
// infra/search/baseline.json. Exits 1 when a metric falls below the baseline by more than the tolerance the
// baseline states.
//   npm run search:eval                          embedded only
//   eval "$(tools/infra/env)"; npm run search:eval   both engines
//   npm run search:eval -- --update-baseline     writes the baseline from this run (commit it with the change)
//   SETTINGS_FILE=other.json npm run search:eval  the report for another settings file
// With CI=true, a missing MEILI_URL fails instead of leaving Meilisearch out.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  BASELINE_PATH,
  compareToBaseline,
  DEFAULT_TOLERANCE,
  evaluate,
  formatReport,
  JUDGEMENTS_PATH,
  loadBaseline,
  loadJudgements,
  loadMeiliSettings,
  MEILI_SETTINGS_PATH,
  MeiliSearchIndex,
  MiniSearchIndex,
  openJudgedCatalog,
  parseSearchSettings,
  reportOf,
  unfollowedSettingsLine,
  type EngineReport,
} from '@commerce/catalog-adapters';
import { createLogger } from '@commerce/shared-logging';

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      'update-baseline': { type: 'boolean', default: false },
      judgements: { type: 'string', default: JUDGEMENTS_PATH },
      baseline: { type: 'string', default: BASELINE_PATH },
      json: { type: 'string' },
    },
  });
  const settingsFile = process.env['SETTINGS_FILE'] ?? MEILI_SETTINGS_PATH;
  const meiliUrl = process.env['MEILI_URL'];
  const apiKey = process.env['MEILI_API_KEY'] ?? process.env['MEILI_MASTER_KEY'];
  if (!meiliUrl && process.env['CI'] === 'true') {
    process.stderr.write('search:eval: MEILI_URL is not set (CI=true needs the report for both engines)\n');
    return 1;
  }
  const logger = createLogger('search-eval', 'warn');
  const judgements = loadJudgements(values.judgements);
  const rawSettings = loadMeiliSettings(settingsFile);
  const settings = parseSearchSettings(rawSettings);
  const unfollowed = unfollowedSettingsLine(settings, settingsFile);
  if (unfollowed) process.stderr.write(`${unfollowed}\n`);

  const catalog = await openJudgedCatalog(judgements, logger);
  const reports: Record<string, EngineReport> = {};
  try {
    const embedded = new MiniSearchIndex(settings);
    await catalog.fill(embedded);
    reports['embedded'] = reportOf(await evaluate(embedded, judgements, catalog.productOf));
    if (meiliUrl) {
      const meili = await MeiliSearchIndex.open(meiliUrl, {
        indexName: `search_eval_${Date.now()}`,
        settings: rawSettings,
        logger,
        ...(apiKey ? { apiKey } : {}),
      });
      try {
        await catalog.fill(meili);
        reports['meilisearch'] = reportOf(await evaluate(meili, judgements, catalog.productOf));
      } finally {
        await meili.deleteIndex();
      }
    }
  } finally {
    await catalog.close();
  }

  process.stdout.write(`${judgements.queries.length} judged queries, settings ${settingsFile}\n\n`);
  if (values['update-baseline']) {
    const previous = (() => {
      try {
        return loadBaseline(values.baseline);
      } catch {
        return undefined;
      }
    })();
    const baseline = {
      description:
        'The relevance of infra/search/judgements.json on each engine, written by `npm run search:eval -- --update-baseline`. search:eval fails when an overall metric falls by more than tolerance.overall, or a class metric by more than tolerance.perClass (zero-result and none-found rates: rise). Latency is shown, never gated.',
      tolerance: previous?.tolerance ?? DEFAULT_TOLERANCE,
      engines: { ...(previous?.engines ?? {}), ...stripLatency(reports) },
    };
    writeFileSync(values.baseline, `${JSON.stringify(baseline, null, 2)}\n`);
    process.stdout.write(`${formatReport(reports)}\nbaseline written to ${values.baseline}\n`);
    return 0;
  }
  const comparison = compareToBaseline(reports, loadBaseline(values.baseline));
  process.stdout.write(`${formatReport(reports, comparison)}\n`);
  if (values.json) writeFileSync(values.json, `${JSON.stringify({ reports, comparison }, null, 2)}\n`);
  return comparison.regressions.length > 0 ? 1 : 0;
}

/** Latency is the machine's as much as the settings': the baseline keeps relevance only. */
function stripLatency(reports: Record<string, EngineReport>): Record<string, EngineReport> {
  const strip = <T extends { p50Ms: number; p99Ms: number }>(m: T): T => ({ ...m, p50Ms: 0, p99Ms: 0 });
  return Object.fromEntries(
    Object.entries(reports).map(([engine, r]) => [
      engine,
      { ...r, overall: strip(r.overall), classes: Object.fromEntries(Object.entries(r.classes).map(([c, m]) => [c, strip(m)])) },
    ]),
  );
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`search:eval failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
