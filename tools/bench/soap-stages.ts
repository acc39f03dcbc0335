// Issue 8's products_Update acknowledgement, stage by stage in one process: the CPU (process.cpuUsage) of
// each step the SOAP endpoint takes for a 1,000-product batch (3 variations × 5 sizes, every field
// filled), and the wall time of the one statement that stores the batch with its outbox rows.
//
//   npm run bench:soap-stages                             # the statement on PGlite in memory
//   source <(tools/infra/env) && npm run bench:soap-stages   # and on Postgres (a schema of its own, dropped)
//   BENCH_SOAP_BATCH (1000), BENCH_ROUNDS (5)
import { SoapProductSchema as ProductSchema, UpsertReceivedEvents } from '@commerce/erp-contracts';
import { createReceivedUpsertsStore, backofficeMigrations, entityToXml, soapRequestXml } from '@commerce/backoffice-adapters';
import { receiveEntities, RECEIVE_CHUNK, validateBatch } from '@commerce/backoffice-core';
import { outboxBatch } from '@commerce/shared-bus';
import { createDbEngine, migrate } from '@commerce/shared-db';
import { parseSoapEnvelope } from '../../libs/backoffice/adapters/src/soap/soap-envelope';
import { StreamedUpdate } from '../../libs/backoffice/adapters/src/soap/soap-streamed-update';
import { updateListOf } from '../../libs/backoffice/adapters/src/soap/soap-operations';
import { checkSoapBytes, DEFAULT_BODY_LIMITS } from '../../libs/backoffice/adapters/src/soap/soap-body.reader';
import { xmlListToEntities, type XmlNode } from '../../libs/backoffice/adapters/src/soap/soap-xml.mapper';
import { generateCatalog } from '../demo/catalog-generator';

const size = Number(process.env['BENCH_SOAP_BATCH'] ?? 1000);
const rounds = Number(process.env['BENCH_ROUNDS'] ?? 5);

function cpuMs<T>(work: () => T): [T, number] {
  const before = process.cpuUsage();
  const value = work();
  const used = process.cpuUsage(before);
  return [value, (used.user + used.system) / 1000];
}

async function main(): Promise<void> {
  const { products } = generateCatalog({ products: size, brands: 20, leafCategories: 50, seed: 7 });
  const inner = `<products>${products.map((p) => `<product>${entityToXml('Product', p)}</product>`).join('')}</products>`;
  const xml = soapRequestXml('products_Update', inner, { username: 'erp', password: 'secret', namespace: 'urn:bench' });
  const bytes = Buffer.from(xml, 'utf8');
  // As it arrives from a socket: 64 kB chunks.
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += 65536) chunks.push(bytes.subarray(at, at + 65536));
  console.log(`batch: ${size} products, ${(bytes.length / 1e6).toFixed(2)} MB of XML`);

  const engines = [{ name: 'pglite', url: 'pglite://memory' }];
  if (process.env['DATABASE_URL']) engines.push({ name: 'postgres', url: process.env['DATABASE_URL'] });
  const stores = await Promise.all(
    engines.map(async ({ name, url }) => {
      const engine = await createDbEngine(url);
      const schema = `bench_stages_${process.pid}`;
      const db = engine.forSchema(schema);
      await migrate(db, backofficeMigrations);
      return { name, engine, db, schema, store: createReceivedUpsertsStore(db) };
    }),
  );

  const rows: Record<string, number[]> = {};
  const record = (stage: string, ms: number) => (rows[stage] ??= []).push(ms);
  const event = UpsertReceivedEvents.product;
  for (let round = 0; round < rounds; round++) {
    const [body, readMs] = cpuMs(() => checkSoapBytes(chunks, DEFAULT_BODY_LIMITS));
    record('read: streaming checks + decode', readMs);
    // Decision 74: the endpoint parses straight into entities; the tree and its walk are measured beside it.
    const [tree, treeMs] = cpuMs(() => parseSoapEnvelope(body.text));
    record('(before 74) parse (tree)', treeMs);
    const [, treeMapMs] = cpuMs(() => xmlListToEntities('Product', 'product', (tree.payload as Record<string, XmlNode>)['products']));
    record('(before 74) tree → entities', treeMapMs);
    const [parsed, parseMs] = cpuMs(() => parseSoapEnvelope(body.text, DEFAULT_BODY_LIMITS.xml, updateListOf));
    record('parse into entities', parseMs);
    const payload = parsed.payload as Record<string, XmlNode>;
    const [entities, mapMs] = cpuMs(() => xmlListToEntities('Product', 'product', payload['products']));
    record('entities out of the parse', mapMs);
    const [valid, validateMs] = cpuMs(() => validateBatch('products', ProductSchema, entities));
    record('validation', validateMs);
    const [envelopes, envelopeMs] = cpuMs(() => valid.map((p) => event.envelopeOfParsed(p, `bench-${round}`)));
    record('envelopes', envelopeMs);
    const [, jsonMs] = cpuMs(() => outboxBatch(envelopes));
    record('JSON + ids of the batch (apart; the store makes its own)', jsonMs);
    for (const { name, store } of stores) {
      const started = performance.now();
      const before = process.cpuUsage();
      await store.saveBatch('product', envelopes, `bench-${round}`);
      const used = process.cpuUsage(before);
      record(`store on ${name}: wall`, performance.now() - started);
      record(`store on ${name}: this process's CPU`, (used.user + used.system) / 1000);
      // Validation, events and the store together: one after the other (before decision 79), and as the
      // endpoint does it now, in chunks written while the next is made (receiveEntities).
      const serial = performance.now();
      await store.saveBatch(
        'product',
        validateBatch('products', ProductSchema, entities).map((p) => event.envelopeOfParsed(p, `bench-s-${round}`)),
        `bench-s-${round}`,
      );
      record(`validation + events + store on ${name}, one after the other: wall`, performance.now() - serial);
      const chunked = performance.now();
      await receiveEntities({ store }, 'product', entities, `bench-c-${round}`);
      record(`validation + events + store on ${name}, chunked (receiveEntities): wall`, performance.now() - chunked);
      // Decision 91: the parse too, whole first (as before) against handed over to the store as it is built.
      const whole = performance.now();
      const wholeParsed = parseSoapEnvelope(body.text, DEFAULT_BODY_LIMITS.xml, updateListOf).payload as Record<string, XmlNode>;
      await receiveEntities({ store }, 'product', xmlListToEntities('Product', 'product', wholeParsed['products']), `bench-w-${round}`);
      record(`parse + validation + events + store on ${name}, parsed whole first: wall`, performance.now() - whole);
      const streaming = performance.now();
      const streamed = new StreamedUpdate(() => (parts) => receiveEntities({ store }, 'product', parts, `bench-p-${round}`), RECEIVE_CHUNK);
      const streamedPayload = (await streamed.parse(body.text, DEFAULT_BODY_LIMITS.xml)).payload as Record<string, XmlNode>;
      const taken = await streamed.take(xmlListToEntities('Product', 'product', streamedPayload['products']));
      if (!taken) throw new Error('the streamed batch was not taken');
      await taken.outcome;
      record(`parse + validation + events + store on ${name}, streamed (decision 91): wall`, performance.now() - streaming);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`ms per batch (median / min / max of ${rounds}):`);
  for (const [stage, xs] of Object.entries(rows))
    console.log(
      `  ${stage.padEnd(62)} ${median(xs).toFixed(0).padStart(6)} ${Math.min(...xs)
        .toFixed(0)
        .padStart(6)} ${Math.max(...xs)
        .toFixed(0)
        .padStart(6)}`,
    );
  for (const { engine, db, schema, name } of stores) {
    if (name === 'postgres') await db.knex.raw('drop schema ?? cascade', [schema]);
    await engine.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
