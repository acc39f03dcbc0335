/**
 * What tests, e2e runs and benches leave on shared engines: Kafka topics and consumer groups, Postgres
 * schemas, Meilisearch indexes, each named after a name of the run's own (`uniqueName`, `rememberName`:
 * a KAFKA_NAMESPACE). A shared broker that gathered thousands of such topics took minutes to start
 * (decision 81). `describeWithEngines` deletes what the names of its suite named when the suite ends, on
 * failure too; a process that is not a jest suite (a bench) calls `cleanUpRememberedNames` on its way out.
 */

/** Every name this module's realm made or was told of, in order (one jest test file has a realm of its own). */
const remembered: string[] = [];

/** Records a name a run gave its resources (topics, groups, schemas, indexes carry it), for clean-up. */
export function rememberName(name: string): string {
  remembered.push(name);
  return name;
}

/** How many names were remembered so far: `rememberedSince(mark)` gives those remembered after it. */
export const rememberedCount = (): number => remembered.length;
export const rememberedSince = (mark: number): string[] => remembered.slice(mark);

/** Where to clean up: the engines that were used, each named as `describeWithEngines` names them. */
export interface CleanupTargets {
  kafkaBrokers?: string;
  postgresUrl?: string;
  meili?: { url: string; key?: string };
}

/** What a clean-up deleted, per engine (names), and what it could not (one line each). */
export interface CleanupReport {
  topics: string[];
  groups: string[];
  schemas: string[];
  indexes: string[];
  failures: string[];
}

const carriesOne = (names: string[]) => (resource: string) => names.some((name) => resource.includes(name));

/**
 * Deletes every Kafka topic and consumer group, Postgres schema (cascade) and Meilisearch index whose name
 * holds one of `names`. Groups with members left are kept (Kafka refuses to delete them). Never throws: a
 * failure is in the report's `failures`, so a clean-up never fails a run that passed.
 */
export async function cleanUpNamed(targets: CleanupTargets, names: string[]): Promise<CleanupReport> {
  const report: CleanupReport = { topics: [], groups: [], schemas: [], indexes: [], failures: [] };
  const unique = [...new Set(names.filter((n) => n.length >= 8))];
  if (unique.length === 0) return report;
  const matches = carriesOne(unique);
  const attempt = async (what: string, work: () => Promise<void>) => {
    try {
      await work();
    } catch (error) {
      report.failures.push(`${what}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  await Promise.all([
    targets.kafkaBrokers && attempt('kafka', () => cleanUpKafka(targets.kafkaBrokers!, matches, report)),
    targets.postgresUrl && attempt('postgres', () => cleanUpPostgres(targets.postgresUrl!, unique, report)),
    targets.meili && attempt('meilisearch', () => cleanUpMeili(targets.meili!, matches, report)),
  ]);
  return report;
}

/** `cleanUpNamed` for every name this process remembered (benches, on their way out), told on stderr if it failed. */
export async function cleanUpRememberedNames(targets: CleanupTargets): Promise<CleanupReport> {
  const report = await cleanUpNamed(targets, remembered.splice(0));
  if (report.failures.length > 0) process.stderr.write(`clean-up: ${report.failures.join('; ')}\n`);
  return report;
}

async function cleanUpKafka(brokers: string, matches: (name: string) => boolean, report: CleanupReport): Promise<void> {
  const { Kafka, logLevel } = await import('kafkajs');
  const admin = new Kafka({
    clientId: 'test-cleanup',
    brokers: brokers.split(',').map((b) => b.trim()),
    logLevel: logLevel.NOTHING,
    retry: { retries: 3 },
  }).admin();
  await admin.connect();
  try {
    const groups = (await admin.listGroups()).groups.map((g) => g.groupId).filter(matches);
    // One by one, so a group with members left (refused) does not hide the others.
    for (const group of groups) {
      try {
        await admin.deleteGroups([group]);
        report.groups.push(group);
      } catch {
        // GROUP_NOT_EMPTY or already gone: kept.
      }
    }
    const topics = (await admin.listTopics()).filter(matches);
    for (let i = 0; i < topics.length; i += 100) {
      const some = topics.slice(i, i + 100);
      await admin.deleteTopics({ topics: some, timeout: 30_000 });
      report.topics.push(...some);
    }
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

async function cleanUpPostgres(url: string, names: string[], report: CleanupReport): Promise<void> {
  const { Client } = await import('pg');
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    // A schema a pool of the suite still holds a lock in waits no longer than this; it is then reported.
    await client.query(`set lock_timeout = '10s'`);
    const { rows } = await client.query<{ nspname: string }>(
      `select nspname from pg_namespace where exists (select 1 from unnest($1::text[]) n where position(n in nspname) > 0)`,
      [names],
    );
    for (const { nspname } of rows) {
      await client.query(`drop schema if exists "${nspname.replace(/"/g, '""')}" cascade`);
      report.schemas.push(nspname);
    }
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function cleanUpMeili(
  meili: { url: string; key?: string },
  matches: (name: string) => boolean,
  report: CleanupReport,
): Promise<void> {
  const headers: Record<string, string> = meili.key ? { Authorization: `Bearer ${meili.key}` } : {};
  const base = meili.url.replace(/\/+$/, '');
  const uids: string[] = [];
  for (let offset = 0; ; offset += 1000) {
    const res = await fetch(`${base}/indexes?limit=1000&offset=${offset}`, { headers });
    if (!res.ok) throw new Error(`GET /indexes: ${res.status}`);
    const page = (await res.json()) as { results: Array<{ uid: string }>; total: number };
    uids.push(...page.results.map((r) => r.uid));
    if (page.results.length === 0 || offset + page.results.length >= page.total) break;
  }
  for (const uid of uids.filter(matches)) {
    // Meilisearch deletes as a task; the index is gone once the task runs, which needs no waiting here.
    const res = await fetch(`${base}/indexes/${encodeURIComponent(uid)}`, { method: 'DELETE', headers });
    if (!res.ok && res.status !== 404) throw new Error(`DELETE /indexes/${uid}: ${res.status}`);
    report.indexes.push(uid);
  }
}
