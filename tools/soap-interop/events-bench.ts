// events_Get latency against the backlog, through the SOAP endpoint (HTTP, login, XML reply):
//   tsx tools/soap-interop/events-bench.ts            on PGlite in memory
//   DATABASE_URL=postgres://… tsx tools/soap-interop/events-bench.ts
// For a backlog of 100, 100,000 pending and 100,000 done (plus 100 pending), 200 sequential calls of
// events_Get (type all, and type order) each returning a full page of 100; prints p50/p99 in ms.
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import pino from 'pino';
import {
  buildBackofficeService,
  createScryptPasswordHasher,
  hashPassword,
  soapHeaders,
  soapRequestXml,
} from '@commerce/backoffice-adapters';
import { DEFAULT_SOAP_NAMESPACE, DEFAULT_SOAP_PATH } from '@commerce/backoffice-contracts';
import { createMemoryBus } from '@commerce/shared-bus';
import { createDbEngine } from '@commerce/shared-db';

const USER = { username: 'bench', password: 'bench-pw' };
const CALLS = Number(process.env['BENCH_CALLS'] ?? 200);

async function main() {
  const url = process.env['DATABASE_URL'] ?? 'pglite://memory';
  const engine = await createDbEngine(url);
  const db = engine.forSchema(`bo_events_bench_${Date.now()}`);
  const params = { N: 1024, r: 8, p: 1 };
  const service = await buildBackofficeService({
    db,
    bus: createMemoryBus(),
    logger: pino({ level: 'silent' }),
    namespace: DEFAULT_SOAP_NAMESPACE,
    users: [{ username: USER.username, passwordHash: await hashPassword(USER.password, params) }],
    hasher: createScryptPasswordHasher({ params }),
  });
  const app = new Koa();
  app.use(service.router.routes());
  const server = app.listen(0, '127.0.0.1');
  // Inserting the backlog takes longer than Node's 5 s keep-alive: the client's idle socket must survive it.
  server.keepAliveTimeout = 120_000;
  await new Promise((r) => server.once('listening', r));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}${DEFAULT_SOAP_PATH}`;

  const insert = (n: number) =>
    db.knex.raw(
      `insert into ??.change_events (type, entry, mission, data, occurred_at)
       select case when g % 3 = 0 then 'order' else 'customer' end, 'e' || g, 'update',
              jsonb_build_object('customer', jsonb_build_object('id', 'e' || g, 'firstname', 'Åsa')), now()
       from generate_series(1, ?) g`,
      [db.schema, n],
    );
  async function measure(label: string, type: string) {
    const times: number[] = [];
    let size = 0;
    for (let i = 0; i < CALLS; i++) {
      const started = performance.now();
      const res = await fetch(endpoint, {
        method: 'POST',
        headers: soapHeaders('events_Get'),
        body: soapRequestXml('events_GetRequest', `<type>${type}</type>`, USER),
      });
      const body = await res.text();
      times.push(performance.now() - started);
      size = (body.match(/<event>/g) ?? []).length;
    }
    times.sort((a, b) => a - b);
    const at = (q: number) => (times[Math.min(times.length - 1, Math.floor(q * times.length))] as number).toFixed(1);
    console.log(`| ${label} | ${type} | ${size} | ${at(0.5)} | ${at(0.99)} |`);
  }

  console.log(`engine: ${engine.engine}`);
  console.log('| backlog | type | events a page | p50 ms | p99 ms |');
  console.log('|---|---|---|---|---|');
  await insert(100);
  await db.knex.raw('analyze ??.change_events', [db.schema]);
  await measure('100 pending', 'all');
  await measure('100 pending', 'order');
  await insert(100_000);
  await db.knex.raw('analyze ??.change_events', [db.schema]);
  await measure('100,100 pending', 'all');
  await measure('100,100 pending', 'order');
  // The user marks everything done but the newest 100: done_through moves past them.
  const newest = (await db.table('change_events').max({ id: 'id' }).first()) as { id: string | number };
  await insert(100);
  await db.table('event_cursors').insert({ username: USER.username, done_through: newest.id });
  await measure('100,100 done + 100 pending', 'all');
  await measure('100,100 done + 100 pending', 'order');

  await new Promise((r) => server.close(r));
  await service.stop();
  await db.knex.raw('drop schema ?? cascade', [db.schema]);
  await engine.close();
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
