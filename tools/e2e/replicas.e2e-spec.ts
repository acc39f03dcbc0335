import { Client } from 'undici';
import { describeWithEngines, uniqueName } from '@commerce/shared-testing';
import { checkoutCall, searchUntilFound, uniqueWord, upsertPricedProduct, type Endpoints } from './skeleton.scenario';
import { connectionsOf, startShopProcesses, stopAppsAndDropSchemas, type ServiceProcess, type ShopApp } from './processes';

// The deployment infra/k8s describes: two edge replicas and two cart replicas, each pair on one port
// (SO_REUSEPORT, decision 86) as a Service spreads connections over pods. A visitor's requests reach
// either edge, and either edge may have rendered the selection before (decisions 48, 72): neither may answer
// with a selection older than the change the other one just answered.
const schemaSuffix = uniqueName('e2e_replicas');
const schemaOf = (app: string) => `${app.replace(/-/g, '_')}_${schemaSuffix}`;
const SHOP_APPS: ShopApp[] = ['catalog', 'cart', 'backoffice-soap', 'payment', 'account', 'order', 'checkout-api'];
const APPS_WITH_SCHEMAS = SHOP_APPS.filter((app) => app !== 'checkout-api');

/** One kept connection to the edges' port, and the edge replica the kernel gave it to. */
interface Pinned {
  client: Client;
  edge: ServiceProcess;
}

describeWithEngines('two edge replicas and two cart replicas on one port each', ['postgres', 'redis', 'kafka'], ({ url }) => {
  const services: ServiceProcess[] = [];
  let edges: ServiceProcess[];
  let carts: ServiceProcess[];
  let endpoints: Endpoints;
  const clients: Client[] = [];

  beforeAll(async () => {
    const shop = await startShopProcesses(
      {
        DATABASE_URL: url('postgres'),
        REDIS_URL: url('redis'),
        KAFKA_BROKERS: url('kafka'),
        STORE_CONFIG: 'infra/config/demo-store.json',
      },
      Object.fromEntries(
        SHOP_APPS.map((app) => [app, { DATABASE_SCHEMA: schemaOf(app), ...(app === 'catalog' ? { MEILI_URL: 'embedded' } : {}) }]),
      ),
      { 'checkout-api': 2, cart: 2 },
    );
    services.push(...shop.all);
    ({ edges, carts } = shop);
    endpoints = {
      checkout: `${shop.edge.url}/api/checkout`,
      soap: `${shop.soap.url}/ams/system/service/module/soap/api`,
      soapUser: { username: 'demo', password: 'demo-secret', namespace: 'urn:commerce-service:backoffice' },
    };
  }, 240_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    const codes = await stopAppsAndDropSchemas(services, url('postgres'), APPS_WITH_SCHEMAS.map(schemaOf));
    // Every replica shuts down gracefully on SIGTERM.
    expect(codes).toEqual(services.map(() => 0));
  }, 60_000);

  /** A new kept connection to the edges' port (undici's Client: one connection), to whichever edge the kernel picks. */
  function open(): Client {
    const client = new Client(new URL(edges[0]!.url).origin, { pipelining: 1 });
    clients.push(client);
    return client;
  }

  /**
   * A new kept connection to the edges' port (undici's Client: one connection), and which edge holds it: the
   * one whose open connections on the port gained a peer.
   */
  async function pin(): Promise<Pinned> {
    const before = connectionsOf(edges);
    const client = open();
    const res = await client.request({ path: '/readyz', method: 'GET' });
    await res.body.text();
    expect(res.statusCode).toBe(200);
    const after = connectionsOf(edges);
    const gained = edges.filter((edge) => after.get(edge)!.some((peer) => !before.get(edge)!.includes(peer)));
    expect(gained).toHaveLength(1);
    return { client, edge: gained[0]! };
  }

  /** One pinned connection on each edge replica: new connections until the kernel has given one to each. */
  async function onEachEdge(): Promise<Pinned[]> {
    const byEdge = new Map<ServiceProcess, Pinned>();
    for (let i = 0; i < 64 && byEdge.size < edges.length; i++) {
      const pinned = await pin();
      if (!byEdge.has(pinned.edge)) byEdge.set(pinned.edge, pinned);
    }
    expect(byEdge.size).toBe(edges.length);
    return [...byEdge.values()];
  }

  /** A checkout call on one pinned connection: that edge replica answers it. */
  async function call(pinned: Pick<Pinned, 'client'>, method: 'GET' | 'POST' | 'PUT', path: string, token?: string) {
    const res = await pinned.client.request({
      path: `/api/checkout${path}`,
      method,
      headers: token ? { 'api-token': token } : {},
    });
    const body = (await res.body.json()) as Record<string, any>;
    expect({ status: res.statusCode, errors: body['errors'] }).toEqual({ status: 200, errors: undefined });
    return body;
  }

  it("spreads connections over both edge replicas, and the edges' kept connections over both cart replicas", async () => {
    const word = uniqueWord();
    await upsertPricedProduct(endpoints, `ext-${word}`, `Replica ${word}`);
    const item = (await searchUntilFound(endpoints, word)).body['products'][0].items[0].item as string;
    const [a, b] = await onEachEdge();
    // New selections made at once on both edges (not batched, decision 78: one cart call each): each edge's pool
    // opens a connection to the carts' port for each call in flight.
    const pinned = [a!, b!, ...Array.from({ length: 16 }, () => ({ client: open() }))];
    const tokens = await Promise.all(pinned.map(async (p) => (await call(p, 'POST', `/items/${item}`))['token'] as string));
    await Promise.all(tokens.map((token, j) => call(pinned[(j + 1) % pinned.length]!, 'GET', '/selection', token)));
    const cartPeers = connectionsOf(carts);
    // Every cart replica holds some of the edges' kept connections: the kernel gave them to both.
    expect(carts.map((cart) => cartPeers.get(cart)!.length > 0)).toEqual([true, true]);
  }, 120_000);

  it('never answers a selection older than the change the other edge replica just answered', async () => {
    const word = uniqueWord();
    await upsertPricedProduct(endpoints, `ext-${word}`, `Replica ${word}`);
    const item = (await searchUntilFound(endpoints, word)).body['products'][0].items[0].item as string;
    const [a, b] = await onEachEdge();
    expect(a!.edge).not.toBe(b!.edge);
    const added = await call(a!, 'POST', `/items/${item}`);
    const token = added['token'] as string;
    const line = added['selection'].items[0].line as string;
    // Each edge renders the selection (and keeps the rendering, decision 48) before the other changes it.
    expect((await call(b!, 'GET', '/selection', token))['selection'].items).toEqual([expect.objectContaining({ line, quantity: 1 })]);
    for (const [quantity, changer, reader] of [
      [3, b, a],
      [2, a, b],
      [5, b, a],
      [4, a, b],
      [6, b, a],
      [1, a, b],
    ] as const) {
      const changed = await call(changer!, 'PUT', `/lines/${line}/quantity/${quantity}`, token);
      expect(changed['selection'].items).toEqual([expect.objectContaining({ line, quantity })]);
      // The other edge, which rendered the selection before this change, answers the change.
      expect((await call(reader!, 'GET', '/selection', token))['selection'].items).toEqual([expect.objectContaining({ line, quantity })]);
      expect((await call(changer!, 'GET', '/selection', token))['selection'].items).toEqual([expect.objectContaining({ line, quantity })]);
    }
    // An item added on one edge is in the selection the other one answers at once, its quantity counted on.
    await call(b!, 'POST', `/items/${item}`, token);
    expect((await call(a!, 'GET', '/selection', token))['selection'].items).toEqual([expect.objectContaining({ line, quantity: 2 })]);
    // The same through the port as any client reaches it.
    expect((await checkoutCall(endpoints, 'GET', '/selection', { token })).body['selection'].items).toEqual([
      expect.objectContaining({ line, quantity: 2 }),
    ]);
  }, 120_000);
});
