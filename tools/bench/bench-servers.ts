import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { startApp, type ServiceProcess } from '../e2e/processes';

export interface BenchServer {
  url: string;
  /** The server's process (its CPU time, from /proc). */
  pid: number;
  engines?: string;
  stop(): Promise<void>;
}

/** `tools/bench/serve.ts <mode>` in its own process (so the load generator does not share its event loop), once it listens. */
export async function spawnBenchServer(mode: string, env: Record<string, string | undefined> = {}): Promise<BenchServer> {
  const child = spawn('node_modules/.bin/tsx', ['tools/bench/serve.ts', mode], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  const lines = createInterface({ input: child.stdout! });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`bench server ${mode} exited with ${code}`)));
  });
  const { url, engines } = JSON.parse(first) as { url: string; engines?: string };
  return {
    url,
    pid: child.pid!,
    ...(engines ? { engines } : {}),
    stop: () => new Promise<void>((r) => (child.once('exit', () => r()), child.kill('SIGTERM'))),
  };
}

/** The checkout-api edge for `POST products` loads: catalog, cart and account behind it (order and payment never called). */
export const startListingEdge = (
  infra: Record<string, string>,
  services: { catalog: ServiceProcess; cart: ServiceProcess; account: ServiceProcess },
): Promise<ServiceProcess> =>
  startApp('checkout-api', {
    ...infra,
    CATALOG_URL: services.catalog.url,
    CART_URL: services.cart.url,
    ACCOUNT_URL: services.account.url,
    // POST products never calls the order or payment service; the edge only needs their addresses.
    ORDER_URL: 'http://127.0.0.1:9',
    PAYMENT_URL: 'http://127.0.0.1:9',
  });
