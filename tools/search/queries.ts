// What shoppers searched for (issue 26, docs/search.md): the most searched and the most often empty queries
// of the last days, from the catalog's search_queries table (normalised query, no personal data).
//   DATABASE_URL=… DATABASE_SCHEMA=catalog npm run search:queries -- --days 7 --limit 20 [--market 1] [--language sv]
// The catalog also lists them read-only at GET /internal/catalog/search-queries?days=7&kind=top|zero&limit=20.
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { SearchQueryStats, type SearchQueryListing } from '@commerce/catalog-adapters';
import { env, loadConfig } from '@commerce/shared-config';
import { createDbEngine } from '@commerce/shared-db';
import { createLogger } from '@commerce/shared-logging';

const ConfigSchema = z.object({ DATABASE_URL: env.databaseUrl, DATABASE_SCHEMA: z.string().default('catalog') });

function table(listing: SearchQueryListing, title: string): string {
  const rows = [['query', 'searches', 'zero results'], ...listing.queries.map((q) => [q.query, String(q.searches), String(q.zeroResults)])];
  const widths = [0, 1, 2].map((c) => Math.max(...rows.map((r) => [...r[c]!].length)));
  const lines = rows.map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  '));
  return `${title} (${listing.from} to ${listing.to})\n${listing.queries.length > 0 ? lines.join('\n') : '(none)'}\n`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      days: { type: 'string', default: '7' },
      limit: { type: 'string', default: '20' },
      market: { type: 'string' },
      language: { type: 'string' },
    },
  });
  const config = loadConfig(ConfigSchema);
  const logger = createLogger('search-queries', 'warn');
  const engine = await createDbEngine(config.DATABASE_URL, { logger });
  try {
    const stats = new SearchQueryStats(engine.forSchema(config.DATABASE_SCHEMA));
    const options = {
      days: Number(values.days),
      limit: Number(values.limit),
      ...(values.market !== undefined ? { market: values.market } : {}),
      ...(values.language !== undefined ? { language: values.language } : {}),
    };
    process.stdout.write(`${table(await stats.list({ ...options, kind: 'top' }), 'Top queries')}\n`);
    process.stdout.write(table(await stats.list({ ...options, kind: 'zero' }), 'Top zero-result queries'));
  } finally {
    await engine.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`search:queries failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
