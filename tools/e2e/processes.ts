import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { rememberName } from '@commerce/shared-testing';

/** A free TCP port on loopback, for a service that must be told its port before it starts. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface ServiceProcess {
  name: string;
  url: string;
  child: ChildProcess;
  output(): string;
}

/**
 * Node's options each service is deployed with (infra/k8s: the container's `args` before its bundle), given
 * to the processes started here too, so that the e2e suites and the benches run what is deployed.
 * `--max-semi-space-size=64` for the edge (decision 83): V8 sizes the young generation from the memory it
 * sees, 64 MB semi-spaces on a large host and a few MB under a container's 384 Mi limit, where every GET's
 * garbage would cost a scavenge every few dozen requests; pinned, it is the same everywhere.
 */
export const SERVICE_NODE_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  'checkout-api': ['--max-semi-space-size=64'],
};

/** Starts `apps/<app>/src/main.ts` as its own process and waits until its /readyz answers 200. */
export async function startApp(app: string, env: Record<string, string>, timeoutMs = 60_000): Promise<ServiceProcess> {
  const port = await freePort();
  let output = '';
  // The deployment's options first: a later one in the caller's NODE_OPTIONS (a bench's) wins.
  const nodeOptions = [...(SERVICE_NODE_OPTIONS[app] ?? []), env['NODE_OPTIONS'] ?? process.env['NODE_OPTIONS'] ?? '']
    .filter(Boolean)
    .join(' ');
  const child = spawn(process.execPath, ['--import', 'tsx', `apps/${app}/src/main.ts`], {
    env: {
      ...process.env,
      LOG_LEVEL: 'warn',
      ...env,
      ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}),
      PORT: String(port),
      HOST: '127.0.0.1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${app} exited with ${child.exitCode}:\n${output}`);
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() - started > timeoutMs) {
      child.kill('SIGKILL');
      throw new Error(`${app} not ready within ${timeoutMs} ms:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { name: app, url, child, output: () => output };
}

/** SIGTERM, then the exit code (a graceful shutdown exits 0). */
export async function stopApp(service: ServiceProcess): Promise<number | null> {
  if (service.child.exitCode !== null) return service.child.exitCode;
  const exited = new Promise<number | null>((resolve) => service.child.once('exit', (code) => resolve(code)));
  service.child.kill('SIGTERM');
  return exited;
}

/**
 * A Kafka namespace (KAFKA_NAMESPACE) of one run's own: its processes' topics and consumer groups are
 * named `<namespace>.<name>`, so a run on a shared broker neither reads an earlier run's backlog nor takes
 * the events of another run going on beside it. Remembered: its topics and groups are deleted when the
 * suite ends (`describeWithEngines`) or the bench exits (`runBench`; decision 81).
 */
export const runKafkaNamespace = (run: string): string =>
  rememberName(`${run}-${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`);

/** The services of a shop, each in its own process. */
export interface ShopProcesses {
  catalog: ServiceProcess;
  cart: ServiceProcess;
  soap: ServiceProcess;
  payment: ServiceProcess;
  account: ServiceProcess;
  order: ServiceProcess;
  edge: ServiceProcess;
  /** Every one of them, for stopping. */
  all: ServiceProcess[];
}

export type ShopApp = 'catalog' | 'cart' | 'backoffice-soap' | 'payment' | 'account' | 'order' | 'checkout-api';

/**
 * Starts the whole shop as separate processes, in the order their URLs are needed: catalog, cart,
 * backoffice-soap and payment; then the account service (it asks the catalog for the stock of items someone
 * waits for) and the order service (it completes paid attempts with the payment service, the catalog's
 * stock and the cart); the checkout-api edge last, told every service's URL. `env` goes to every process,
 * `per` adds to one app's; without a KAFKA_NAMESPACE in `env` the shop gets one of its own
 * (`runKafkaNamespace`). When one fails to start, the ones started are stopped.
 */
export async function startShopProcesses(
  shopEnv: Record<string, string>,
  per: Partial<Record<ShopApp, Record<string, string>>> = {},
): Promise<ShopProcesses> {
  const env = { KAFKA_NAMESPACE: runKafkaNamespace('shop'), ...shopEnv };
  const all: ServiceProcess[] = [];
  const start = async (app: ShopApp, extra: Record<string, string> = {}) => {
    const service = await startApp(app, { ...env, ...extra, ...per[app] });
    all.push(service);
    return service;
  };
  try {
    const [catalog, cart, soap, payment] = await Promise.all([start('catalog'), start('cart'), start('backoffice-soap'), start('payment')]);
    const [account, order] = await Promise.all([
      start('account', { CATALOG_URL: catalog.url }),
      start('order', { PAYMENT_URL: payment.url, CATALOG_URL: catalog.url, CART_URL: cart.url }),
    ]);
    const edge = await start('checkout-api', {
      CATALOG_URL: catalog.url,
      CART_URL: cart.url,
      ACCOUNT_URL: account.url,
      ORDER_URL: order.url,
      PAYMENT_URL: payment.url,
    });
    return { catalog, cart, soap, payment, account, order, edge, all };
  } catch (error) {
    await Promise.all(all.map(stopApp));
    throw error;
  }
}
