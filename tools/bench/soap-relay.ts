// Issue 8's products_Update: the outbox relay's CPU for one 1,000-product batch's envelopes in the process
// that acknowledges the next batch (backoffice-soap), decision 99's stored text handed to the bus as it is
// (`publishEncoded`) against the envelopes parsed (pg's JSON.parse of the `json` column) and serialised
// again for the bus (`publish`), alternated round by round in one process on the same rows.
//
//   npm run bench:soap-relay                                  # PGlite in memory, the in-memory bus
//   source <(tools/infra/env) && npm run bench:soap-relay     # Postgres and Kafka (a schema and a namespace of its own, deleted)
//   BENCH_SOAP_BATCH (1000), BENCH_ROUNDS (9)
import { randomUUID } from 'node:crypto';
import { SoapProductSchema as ProductSchema, UpsertReceivedEvents } from '@commerce/erp-contracts';
import { entityToXml, soapRequestXml } from '@commerce/backoffice-adapters';
import { validateBatch } from '@commerce/backoffice-core';
import { createEventBus, createMemoryBus, enqueue, outboxMigrations, OutboxRelay, type EventBus } from '@commerce/shared-bus';
import { createDbEngine, migrate } from '@commerce/shared-db';
import { cleanUpRememberedNames, rememberName } from '@commerce/shared-testing';
import { parseSoapEnvelope } from '../../libs/backoffice/adapters/src/soap/soap-envelope';
import { updateListOf } from '../../libs/backoffice/adapters/src/soap/soap-operations';
import { xmlListToEntities, type XmlNode } from '../../libs/backoffice/adapters/src/soap/soap-xml.mapper';
import { generateCatalog } from '../demo/catalog-generator';

const size = Number(process.env['BENCH_SOAP_BATCH'] ?? 1000);
const rounds = Number(process.env['BENCH_ROUNDS'] ?? 9);

async function main(): Promise<void> {
  const { products } = generateCatalog({ products: size, brands: 20, leafCategories: 50, seed: 7 });
  const inner = `<products>${products.map((p) => `<product>${entityToXml('Product', p)}</product>`).join('')}</products>`;
  const xml = soapRequestXml('products_Update', inner, { username: 'erp', password: 'secret', namespace: 'urn:bench' });
  const payload = parseSoapEnvelope(xml, undefined, updateListOf).payload as Record<string, XmlNode>;
  const valid = validateBatch('products', ProductSchema, xmlListToEntities('Product', 'product', payload['products']));

  const name = rememberName(`bench_relay_${process.pid}`);
  const engine = await createDbEngine(process.env['DATABASE_URL'] ?? 'pglite://memory');
  const db = engine.forSchema(name);
  await migrate(db, outboxMigrations);
  const brokers = process.env['KAFKA_BROKERS'];
  const bus: EventBus = brokers ? await createEventBus(brokers, { clientId: 'bench-relay', namespace: name }) : createMemoryBus();
  // The same bus without publishEncoded: the relay parses each row and the bus serialises it again (before decision 99).
  const parsedBus: EventBus = {
    kind: bus.kind,
    publish: (e) => bus.publish(e),
    subscribe: (o) => bus.subscribe(o),
    ping: () => bus.ping(),
    close: () => bus.close(),
  };
  console.log(`${size} envelopes a batch on ${db.engine} and the ${bus.kind} bus`);

  const rows: Record<string, number[]> = {};
  const record = (stage: string, ms: number) => (rows[stage] ??= []).push(ms);
  for (let round = 0; round < rounds; round++) {
    const modes = round % 2 === 0 ? (['encoded', 'parsed'] as const) : (['parsed', 'encoded'] as const);
    for (const mode of modes) {
      const requestId = randomUUID();
      const envelopes = valid.map((p) => ({ ...UpsertReceivedEvents.product.envelopeOfParsed(p, requestId), topic: 'bench.relay.v1' }));
      await db.transaction((trx) => enqueue(db, trx, envelopes));
      const relay = new OutboxRelay(db, mode === 'encoded' ? bus : parsedBus, { batchSize: 500 });
      const started = performance.now();
      const before = process.cpuUsage();
      const published = await relay.flush();
      const used = process.cpuUsage(before);
      if (published !== envelopes.length) throw new Error(`published ${published} of ${envelopes.length}`);
      record(
        `relay ${mode === 'encoded' ? 'hands the stored text over (decision 99)' : 'parses and serialises again (before)'}: CPU`,
        (used.user + used.system) / 1000,
      );
      record(
        `relay ${mode === 'encoded' ? 'hands the stored text over (decision 99)' : 'parses and serialises again (before)'}: wall`,
        performance.now() - started,
      );
      await relay.stop();
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`ms per batch of this process (median / min / max of ${rounds}, alternated):`);
  for (const [stage, xs] of Object.entries(rows))
    console.log(
      `  ${stage.padEnd(62)} ${median(xs).toFixed(0).padStart(6)} ${Math.min(...xs)
        .toFixed(0)
        .padStart(6)} ${Math.max(...xs)
        .toFixed(0)
        .padStart(6)}`,
    );
  await bus.close();
  await engine.close();
  const report = await cleanUpRememberedNames({ kafkaBrokers: brokers, postgresUrl: process.env['DATABASE_URL'] });
  if (report.failures.length > 0) console.error('clean-up failed:', report.failures.join('; '));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
