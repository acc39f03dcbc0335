// What shoppers searched for (issue 26, docs/search.md): the most searched and the most often empty queries
// of the last days, from the catalog's search_queries table (normalised query, no personal data).
//   DATABASE_URL=… DATABASE_SCHEMA=catalog npm run search:queries -- --days 7 --limit 20 [--market 1] [--language sv]
// The catalog also lists them read-only at GET /internal/catalog/search-queries?days=7&kind=top|zero&limit=20.
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { ListOptionsSchema, SearchQueryStats, type SearchQueryListing } from '@commerce/catalog-adapters';
import { env, loadConfig } from '@commerce/shared-config';
import { createDbEngine, type Db } from '@commerce/shared-db';
import { fieldsFromIssues } from '@commerce/shared-errors';
import { createLogger } from '@commerce/shared-logging';

const ConfigSchema = z.object({ DATABASE_URL: env.databaseUrl, DATABASE_SCHEMA: z.string().default('catalog') });

/** What the command's user did wrong (options, or a database without the table): said in one line, exit 1. */
export class UsageError extends Error {}

function table(listing: SearchQueryListing, title: string): string {
  const rows = [['query', 'searches', 'zero results'], ...listing.queries.map((q) => [q.query, String(q.searches), String(q.zeroResults)])];
  const widths = [0, 1, 2].map((c) => Math.max(...rows.map((r) => [...r[c]!].length)));
  const lines = rows.map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  '));
  return `${title} (${listing.from} to ${listing.to})\n${listing.queries.length > 0 ? lines.join('\n') : '(none)'}\n`;
}

/** The command's options, checked as the catalog's internal route checks its query (days 1–366, limit 1–1000). */
export function optionsOf(args: string[]) {
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        days: { type: 'string', default: '7' },
        limit: { type: 'string', default: '20' },
        market: { type: 'string' },
        language: { type: 'string' },
      },
    }));
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e));
  }
  const parsed = ListOptionsSchema.omit({ kind: true }).safeParse(values);
  if (!parsed.success)
    throw new UsageError(
      Object.entries(fieldsFromIssues(parsed.error.issues))
        .map(([option, why]) => `--${option} ${why}`)
        .join('; '),
    );
  return parsed.data;
}

/** The two lists, most searched and most often empty, as the command prints them. */
export async function report(db: Db, args: string[], now?: () => Date): Promise<string> {
  const options = optionsOf(args);
  const stats = new SearchQueryStats(db, now ? { now } : {});
  try {
    return `${table(await stats.list({ ...options, kind: 'top' }), 'Top queries')}\n${table(await stats.list({ ...options, kind: 'zero' }), 'Top zero-result queries')}`;
  } catch (e) {
    // undefined_table: a database the catalog has never started on (it makes its tables when it starts).
    if ((e as { code?: unknown }).code === '42P01')
      throw new UsageError(
        `no table ${db.schema}.search_queries in that database: the catalog creates it when it starts; check DATABASE_URL and DATABASE_SCHEMA`,
      );
    throw e;
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  optionsOf(args);
  const config = loadConfig(ConfigSchema);
  const engine = await createDbEngine(config.DATABASE_URL, { logger: createLogger('search-queries', 'warn') });
  try {
    process.stdout.write(await report(engine.forSchema(config.DATABASE_SCHEMA), args));
  } finally {
    await engine.close();
  }
}

if (require.main === module)
  main().catch((error: unknown) => {
    process.stderr.write(`search:queries failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
