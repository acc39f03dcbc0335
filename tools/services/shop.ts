// The shop as separate processes on real engines: what `npm run services` starts (tools/services/up.ts) and what
// the separate-processes e2e suite starts, through the same code, so the launcher cannot rot.
import { readFileSync } from 'node:fs';
import { entityToXml, UPDATE_OPERATIONS } from '@commerce/backoffice-adapters';
import { checkoutCall, postSoap, type Endpoints } from '../e2e/skeleton.scenario';
import { SHOP_APPS, startShopProcesses, type ShopApp, type ShopProcesses } from '../e2e/processes';

export const DEMO_STORE = 'infra/config/demo-store.json';
export const DEMO_CATALOG = 'infra/config/demo-catalog.json';
/** The demo store's SOAP user (infra/config/demo-store.json). */
export const DEMO_SOAP_USER = { username: 'demo', password: 'demo-secret', namespace: 'urn:commerce-service:backoffice' };

/** Each service's default port (its main's `httpServiceEnv`): `npm run services` listens on them, from SERVICES_PORT_BASE. */
export const DEFAULT_PORT_OFFSETS: Readonly<Record<ShopApp, number>> = {
  'checkout-api': 0,
  cart: 1,
  catalog: 2,
  account: 3,
  payment: 4,
  order: 5,
  'backoffice-soap': 6,
};

/** The Postgres schema each app's tables live in (its `databaseEnv` default); the edge has none. */
export const DEFAULT_SCHEMAS: Readonly<Partial<Record<ShopApp, string>>> = {
  catalog: 'catalog',
  cart: 'cart',
  account: 'account',
  payment: 'payment',
  order: 'order',
  'backoffice-soap': 'backoffice',
};

export interface ShopOptions {
  /** DATABASE_URL, REDIS_URL and KAFKA_BROKERS (tools/infra/env prints them). */
  engines: { DATABASE_URL: string; REDIS_URL: string; KAFKA_BROKERS: string };
  /** Meilisearch for the catalog's search; without it the catalog's own embedded index. */
  meili?: { url: string; apiKey?: string | undefined; index: string } | undefined;
  /** Put after every schema (`catalog_<name>`) and as the Kafka namespace: a shop beside others on shared engines. */
  name?: string | undefined;
  /** The first port: the edge on it, the others after it (DEFAULT_PORT_OFFSETS); unset: free ports. */
  portBase?: number | undefined;
  /** Variables for one app's process beside the launcher's. */
  per?: Partial<Record<ShopApp, Record<string, string>>>;
}

export interface Shop extends ShopProcesses {
  endpoints: Endpoints;
  /** Each app's Postgres schema. */
  schemas: string[];
}

/** The schema each app runs in, with the shop's name after it. */
export const schemaOf = (app: ShopApp, name?: string): string | undefined =>
  DEFAULT_SCHEMAS[app] && (name ? `${DEFAULT_SCHEMAS[app]}_${name.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}` : DEFAULT_SCHEMAS[app]);

/** Starts the seven services, each in its own process with what it needs (STORE_CONFIG, the other services' URLs). */
export async function startShop(options: ShopOptions): Promise<Shop> {
  const { engines, meili, name, portBase, per = {} } = options;
  const appEnv = (app: ShopApp): Record<string, string> => {
    const schema = schemaOf(app, name);
    return {
      ...(schema ? { DATABASE_SCHEMA: schema } : {}),
      ...(app === 'catalog'
        ? meili
          ? { MEILI_URL: meili.url, MEILI_INDEX: meili.index, ...(meili.apiKey ? { MEILI_API_KEY: meili.apiKey } : {}) }
          : { MEILI_URL: 'embedded' }
        : {}),
      ...per[app],
    };
  };
  const shop = await startShopProcesses(
    { ...engines, STORE_CONFIG: DEMO_STORE, ...(name ? { KAFKA_NAMESPACE: name } : {}) },
    Object.fromEntries(SHOP_APPS.map((app) => [app, appEnv(app)])),
    {},
    portBase === undefined ? {} : Object.fromEntries(SHOP_APPS.map((app) => [app, portBase + DEFAULT_PORT_OFFSETS[app]])),
  );
  return {
    ...shop,
    endpoints: {
      checkout: `${shop.edge.url}/api/checkout`,
      soap: `${shop.soap.url}/ams/system/service/module/soap/api`,
      soapUser: DEMO_SOAP_USER,
    },
    schemas: SHOP_APPS.flatMap((app) => schemaOf(app, name) ?? []),
  };
}

export interface SeedOptions {
  file?: string;
  timeoutMs?: number;
  /** Whether the listing's count is the whole catalog; by default once it is above 0 and unchanged for half a second. */
  complete?: (count: number) => boolean;
}

/**
 * Sends the demo catalog (infra/config/demo-catalog.json) through SOAP as an ERP would, each list in one `*_Update`
 * (markets and warehouses before the sizes, prices and delivery windows, the products last), then waits until the
 * checkout API lists it (applied by the catalog and indexed). Resolves to `productCount` of `POST products`.
 */
export async function seedDemoCatalog(endpoints: Endpoints, options: SeedOptions = {}): Promise<number> {
  const { file = DEMO_CATALOG, timeoutMs = 60_000 } = options;
  const catalog = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown[]>;
  const order = ['markets', 'warehouses', 'sizes', 'pricelists', 'deliverywindows', 'products'];
  for (const list of Object.keys(catalog).sort((a, b) => order.indexOf(a) - order.indexOf(b))) {
    const operation = UPDATE_OPERATIONS.find((o) => o.list === list);
    if (!operation) throw new Error(`${file}: no SOAP operation takes "${list}"`);
    const items = catalog[list]!.map((entity) => `<${operation.item}>${entityToXml(operation.type, entity)}</${operation.item}>`);
    const answer = await postSoap(endpoints, operation.name, `<${list}>${items.join('')}</${list}>`);
    if (answer.status !== 200 || !answer.text.includes('>OK<'))
      throw new Error(`SOAP ${operation.name} answered ${answer.status}: ${answer.text.slice(0, 500)}`);
  }
  const started = Date.now();
  let previous = 0;
  for (;;) {
    const listed = await checkoutCall(endpoints, 'POST', '/products', { body: { limit: 1 } });
    const count = listed.status === 200 ? Number(listed.body['productCount'] ?? 0) : 0;
    if (options.complete ? options.complete(count) : count > 0 && count === previous) return count;
    if (Date.now() - started > timeoutMs)
      throw new Error(`the demo catalog was not listed within ${timeoutMs} ms: ${JSON.stringify(listed.body)}`);
    previous = count;
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** What `npm run services` prints once the shop is up. */
export function shopAddresses(shop: Shop): string {
  const edge = shop.edge.url;
  return [
    `  Checkout API : ${shop.endpoints.checkout}/   (try: curl ${edge}/api/checkout/selection)`,
    `  OpenAPI      : ${shop.endpoints.checkout}/openapi.json`,
    `  SOAP API     : ${shop.endpoints.soap}   (user ${DEMO_SOAP_USER.username} / ${DEMO_SOAP_USER.password})`,
    `  WSDL         : ${shop.endpoints.soap}?wsdl`,
    `  Payment pages: ${shop.payment.url}/payment/`,
    '  Services (internal HTTP, /healthz /readyz /metrics):',
    ...[...shop.all]
      .sort((a, b) => Number(new URL(a.url).port) - Number(new URL(b.url).port))
      .map((p) => `    ${p.name.padEnd(16)} ${p.url}   pid ${p.child.pid}`),
  ].join('\n');
}
