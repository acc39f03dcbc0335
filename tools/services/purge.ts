// `SERVICES_NAME=<name> tools/services/down --purge`: deletes what a named shop of `npm run services` left on the
// engines: its Postgres schemas (`catalog_<name>`…), its Kafka topics and consumer groups (namespace `<name>`)
// and its Meilisearch index (`products_<name>`). A shop without a name lives in the services' default schemas,
// which other runs on the same engines may use: it is not purged.
import { cleanUpNamed } from '@commerce/shared-testing';
import { enginesEnv } from './engines-env';

async function main() {
  const name = process.env['SERVICES_NAME'] ?? '';
  if (name.length < 8) throw new Error("purge: set SERVICES_NAME to the shop's name (8 characters or more) as `npm run services` had it");
  const env = enginesEnv();
  const meili = env['MEILI_URL'];
  const key = env['MEILI_API_KEY'] || env['MEILI_MASTER_KEY'];
  const report = await cleanUpNamed(
    {
      ...(env['KAFKA_BROKERS'] ? { kafkaBrokers: env['KAFKA_BROKERS'] } : {}),
      ...(env['DATABASE_URL']?.startsWith('postgres') ? { postgresUrl: env['DATABASE_URL'] } : {}),
      ...(meili ? { meili: { url: meili, ...(key ? { key } : {}) } } : {}),
    },
    [name],
  );
  console.log(
    `purged ${name}: ${report.schemas.length} schemas, ${report.topics.length} topics, ${report.groups.length} groups, ${report.indexes.length} indexes`,
  );
  if (report.failures.length) throw new Error(`purge: ${report.failures.join('; ')}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
