import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { Client as PgClient } from 'pg';
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
  /** Starts the app again with the same environment on the same port (after this process died or was killed). */
  restart(timeoutMs?: number): Promise<ServiceProcess>;
}

/**
 * Node's options each service is deployed with (infra/k8s: the container's `args` before its bundle), given
 * to the processes started here too, so that the e2e suites and the benches run what is deployed; the
 * manifests' test checks the two agree and that each fits its container's memory limit.
 * Every service pins both generations of its heap (decision 109): Node sizes V8's heap from the memory it
 * sees, so unpinned a service ran with 64 MB semi-spaces and a 4 GB old generation here and with ~1 MB
 * semi-spaces and a 256 MB old generation under its 384 Mi limit (measured under that limit: backoffice-soap
 * took about twice the CPU a SOAP batch, ~165 scavenges and ~9 mark-compacts a batch).
 * - checkout-api: `--max-semi-space-size=16` (decisions 83, 108): every GET's garbage would cost a scavenge every
 *   few dozen requests at the deployed ~1 MB; 16, not 64: a scavenge's length grows with the semi-space (what it
 *   copies is alive), and four short ones hurt the p99 less than one long. Its old generation what Node gave it
 *   under its 512 Mi, now written down. `--heap-growing-percent=100` (decision 116): the same ~1.3× cap as
 *   backoffice-soap's made a full mark-compact of the ~26 MB live heap every 0.25–0.5 s under POST load; 2×
 *   halves them.
 * - backoffice-soap and catalog: measured with the SOAP batch bench (decision 109). backoffice-soap also grows its
 *   old generation 4× past what a mark-compact left (`--heap-growing-percent=300`, decision 115): under 256 MB
 *   V8 grows it only ~1.3×, and a batch's ~30 MB of garbage then cost 5–8 mark-compacts instead of 2–3.
 * - cart, account, order, payment: not measured; a young generation between the deployed ~1 MB and the
 *   benches' 64 MB, and the old generation within their 384 Mi.
 */
export const SERVICE_NODE_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  'checkout-api': ['--max-semi-space-size=16', '--max-old-space-size=256', '--heap-growing-percent=100'],
  'backoffice-soap': ['--max-semi-space-size=32', '--max-old-space-size=192', '--heap-growing-percent=300'],
  catalog: ['--max-semi-space-size=32', '--max-old-space-size=384'],
  cart: ['--max-semi-space-size=16', '--max-old-space-size=192'],
  account: ['--max-semi-space-size=16', '--max-old-space-size=192'],
  order: ['--max-semi-space-size=16', '--max-old-space-size=192'],
  payment: ['--max-semi-space-size=16', '--max-old-space-size=192'],
};

/**
 * The code a started service runs, `SERVICE_RUNTIME` of the process that starts it (decision 95):
 * - `bundle` (the default): what the image runs, `node <its options> dist/apps/<app>/main.js` with
 *   `NODE_ENV=production` (the Dockerfile's runtime stage), the esbuild bundle of `tools/build/build-app.mjs`,
 *   built by the launcher before the first start of each app in this process (`buildBundles`): never an old
 *   bundle of changed code.
 * - `tsx`: `node --import tsx apps/<app>/src/main.ts`, the sources transformed on load (tsx's loader hooks,
 *   source maps, names kept), with the caller's `NODE_ENV`: what a developer runs, no build.
 */
export type ServiceRuntime = 'bundle' | 'tsx';

export function serviceRuntime(): ServiceRuntime {
  const runtime = process.env['SERVICE_RUNTIME'] || 'bundle';
  if (runtime !== 'bundle' && runtime !== 'tsx') throw new Error(`SERVICE_RUNTIME must be bundle or tsx, not ${runtime}`);
  return runtime;
}

/** The builds of this process, by app: each app's bundle is made once a process, when it is first started. */
const builds = new Map<string, Promise<void>>();

/**
 * Builds the apps' bundles (`dist/apps/<app>/main.js`) with `tools/build/build-app.mjs`, once each in this
 * process, all in one esbuild run: a run (a bench, an e2e suite) starts the bundles of the code as it is when
 * it starts. The build writes each file whole and renames it into place, so runs side by side in one worktree
 * never start a half-written bundle.
 */
export function buildBundles(apps: readonly string[]): Promise<void> {
  const toBuild = [...new Set(apps)].filter((app) => !builds.has(app));
  if (toBuild.length) {
    const built = new Promise<void>((resolve, reject) =>
      execFile(process.execPath, ['tools/build/build-app.mjs', ...toBuild.map((app) => `apps/${app}`)], (error, _stdout, stderr) =>
        error ? reject(new Error(`building ${toBuild.join(', ')} failed: ${error.message}\n${stderr}`)) : resolve(),
      ),
    );
    for (const app of toBuild) builds.set(app, built);
    // A failed build is tried again by the next start.
    built.catch(() => toBuild.forEach((app) => builds.delete(app)));
  }
  return Promise.all(apps.map((app) => builds.get(app))).then(() => undefined);
}

/** Starts the app (see `serviceRuntime`) as its own process on `port` (else a free one) and waits until its /readyz answers 200. */
export async function startApp(app: string, env: Record<string, string>, timeoutMs = 60_000, port?: number): Promise<ServiceProcess> {
  return launch(app, app, env, port ?? (await freePort()), timeoutMs);
}

/**
 * Starts `replicas` processes of one app listening on one port with SO_REUSEPORT (REUSE_PORT, decision 86):
 * the kernel spreads the port's new connections over them, as a Service spreads them over a Deployment's
 * pods. The first is named after the app, the others `<app>#2`, `<app>#3`…; each is waited for until it
 * listens and the port's /readyz answers 200. One replica is `startApp` (without REUSE_PORT).
 */
export async function startReplicas(
  app: string,
  env: Record<string, string>,
  replicas: number,
  timeoutMs = 60_000,
  at?: number,
): Promise<ServiceProcess[]> {
  if (replicas <= 1) return [await startApp(app, env, timeoutMs, at)];
  const port = at ?? (await freePort());
  const started: ServiceProcess[] = [];
  try {
    // One after another: a replica's /readyz is asked on the shared port, which the ones before it answer too.
    for (let i = 0; i < replicas; i++)
      started.push(await launch(i === 0 ? app : `${app}#${i + 1}`, app, { ...env, REUSE_PORT: 'true' }, port, timeoutMs));
    return started;
  } catch (error) {
    await Promise.all(started.map(stopApp));
    throw error;
  }
}

/**
 * How a started service gets its deployed options (`SERVICE_NODE_OPTIONS`) and the caller's `NODE_OPTIONS`: the
 * deployed ones Node accepts in `NODE_OPTIONS` go there first, so a later one of the caller's (a bench's) wins;
 * the V8 flags Node refuses there (`--heap-growing-percent`, decision 115) go on the command line before the
 * script, as the container's `args` pass them (nothing in `NODE_OPTIONS` can set those).
 */
export function deployedNodeOptions(app: string, callerOptions: string): { nodeOptions: string; commandLine: string[] } {
  const deployed = SERVICE_NODE_OPTIONS[app] ?? [];
  const inEnv = (option: string) => process.allowedNodeEnvironmentFlags.has(option.split('=')[0]!);
  return {
    nodeOptions: [...deployed.filter(inEnv), callerOptions].filter(Boolean).join(' '),
    commandLine: deployed.filter((option) => !inEnv(option)),
  };
}

async function launch(name: string, app: string, env: Record<string, string>, port: number, timeoutMs: number): Promise<ServiceProcess> {
  let output = '';
  const { nodeOptions, commandLine } = deployedNodeOptions(app, env['NODE_OPTIONS'] ?? process.env['NODE_OPTIONS'] ?? '');
  const runtime = serviceRuntime();
  if (runtime === 'bundle') await buildBundles([app]);
  const command = [
    ...commandLine,
    ...(runtime === 'bundle' ? [`dist/apps/${app}/main.js`] : ['--import', 'tsx', `apps/${app}/src/main.ts`]),
  ];
  const child = spawn(process.execPath, command, {
    env: {
      ...process.env,
      // The image's environment (Dockerfile), not the caller's (jest's NODE_ENV=test); the caller's env may set it.
      ...(runtime === 'bundle' ? { NODE_ENV: 'production' } : {}),
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
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}:\n${output}`);
    try {
      // A replica beside others: its own socket listening first (the port's /readyz may be another's answer).
      const res = env['REUSE_PORT'] && !isListening(child.pid!, port) ? undefined : await fetch(`${url}/readyz`);
      if (res?.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() - started > timeoutMs) {
      child.kill('SIGKILL');
      throw new Error(`${name} not ready within ${timeoutMs} ms:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { name, url, child, output: () => output, restart: (again = timeoutMs) => launch(name, app, env, port, again) };
}

/** One TCP socket of this host (Linux: /proc/net/tcp and tcp6). */
interface TcpSocket {
  localPort: number;
  remotePort: number;
  /** `0A` listening, `01` established. */
  state: string;
  inode: string;
}

function tcpSockets(): TcpSocket[] {
  return ['/proc/net/tcp', '/proc/net/tcp6'].flatMap((file) => {
    if (!existsSync(file)) return [];
    return readFileSync(file, 'utf8')
      .split('\n')
      .slice(1)
      .filter(Boolean)
      .map((line) => {
        const f = line.trim().split(/\s+/);
        return {
          localPort: parseInt(f[1]!.split(':')[1]!, 16),
          remotePort: parseInt(f[2]!.split(':')[1]!, 16),
          state: f[3]!,
          inode: f[9]!,
        };
      });
  });
}

/** The inodes of a process's open sockets (its /proc/<pid>/fd links `socket:[inode]`). */
function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  let fds: string[] = [];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return inodes;
  }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]!);
    } catch {
      // closed meanwhile
    }
  }
  return inodes;
}

/** Whether the process has a socket of its own listening on the port. */
export function isListening(pid: number, port: number): boolean {
  const inodes = socketInodes(pid);
  return tcpSockets().some((s) => s.state === '0A' && s.localPort === port && inodes.has(s.inode));
}

/**
 * The connections each replica of a service holds open on its port, by the peer's port: which replica the
 * kernel gave each connection to (the edge's pool to the cart, the load generator's connections to the edge).
 */
export function connectionsOf(replicas: ServiceProcess[]): Map<ServiceProcess, number[]> {
  const sockets = tcpSockets();
  return new Map(
    replicas.map((replica) => {
      const port = Number(new URL(replica.url).port);
      const inodes = socketInodes(replica.child.pid!);
      return [replica, sockets.filter((s) => s.state === '01' && s.localPort === port && inodes.has(s.inode)).map((s) => s.remotePort)];
    }),
  );
}

/** SIGTERM, then the exit code (a graceful shutdown exits 0). */
export async function stopApp(service: ServiceProcess): Promise<number | null> {
  if (service.child.exitCode !== null) return service.child.exitCode;
  const exited = new Promise<number | null>((resolve) => service.child.once('exit', (code) => resolve(code)));
  service.child.kill('SIGTERM');
  return exited;
}

/** Stops the services (their exit codes, in order), then drops the Postgres schemas they ran in. */
export async function stopAppsAndDropSchemas(
  services: ServiceProcess[],
  postgresUrl: string,
  schemas: string[],
): Promise<(number | null)[]> {
  const codes = await Promise.all(services.map(stopApp));
  const sql = new PgClient({ connectionString: postgresUrl });
  await sql.connect();
  try {
    for (const schema of schemas) await sql.query(`drop schema if exists "${schema}" cascade`);
  } finally {
    await sql.end();
  }
  return codes;
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
  /** Every replica of the cart and of the edge (`cart` and `edge` are their first). */
  carts: ServiceProcess[];
  edges: ServiceProcess[];
  /** Every one of them, for stopping. */
  all: ServiceProcess[];
}

export const SHOP_APPS = ['catalog', 'cart', 'backoffice-soap', 'payment', 'account', 'order', 'checkout-api'] as const;
export type ShopApp = (typeof SHOP_APPS)[number];

/**
 * Starts the whole shop as separate processes, in the order their URLs are needed: catalog, cart,
 * backoffice-soap and payment; then the account service (it asks the catalog for the stock of items someone
 * waits for) and the order service (it completes paid attempts with the payment service, the catalog's
 * stock and the cart); the checkout-api edge last, told every service's URL. `env` goes to every process,
 * `per` adds to one app's; without a KAFKA_NAMESPACE in `env` the shop gets one of its own
 * (`runKafkaNamespace`). `replicas` runs that many processes of the cart or the edge on one port
 * (`startReplicas`), as infra/k8s deploys two of each; `ports` puts an app on a port of its own choosing (else a
 * free one). When one fails to start, the ones started are stopped.
 */
export async function startShopProcesses(
  shopEnv: Record<string, string>,
  per: Partial<Record<ShopApp, Record<string, string>>> = {},
  replicas: Partial<Record<'cart' | 'checkout-api', number>> = {},
  ports: Partial<Record<ShopApp, number>> = {},
): Promise<ShopProcesses> {
  const env = { KAFKA_NAMESPACE: runKafkaNamespace('shop'), ...shopEnv };
  if (serviceRuntime() === 'bundle') await buildBundles(SHOP_APPS);
  const all: ServiceProcess[] = [];
  const startAll = async (app: ShopApp, extra: Record<string, string> = {}) => {
    const started = await startReplicas(
      app,
      { ...env, ...extra, ...per[app] },
      app === 'cart' || app === 'checkout-api' ? (replicas[app] ?? 1) : 1,
      60_000,
      ports[app],
    );
    all.push(...started);
    return started;
  };
  const start = async (app: ShopApp, extra: Record<string, string> = {}) => (await startAll(app, extra))[0]!;
  try {
    const [catalog, carts, soap, payment] = await Promise.all([
      start('catalog'),
      startAll('cart'),
      start('backoffice-soap'),
      start('payment'),
    ]);
    const cart = carts[0]!;
    const [account, order] = await Promise.all([
      start('account', { CATALOG_URL: catalog.url }),
      start('order', { PAYMENT_URL: payment.url, CATALOG_URL: catalog.url, CART_URL: cart.url }),
    ]);
    const edges = await startAll('checkout-api', {
      // Every run on this machine's shared Redis counts its new sessions under 127.0.0.1 (decision 134): a limit
      // the runs together cannot reach, unless the caller sets one.
      SESSION_NEW_PER_ADDRESS: process.env['SESSION_NEW_PER_ADDRESS'] ?? '1000000',
      CATALOG_URL: catalog.url,
      CART_URL: cart.url,
      ACCOUNT_URL: account.url,
      ORDER_URL: order.url,
      PAYMENT_URL: payment.url,
    });
    return { catalog, cart, soap, payment, account, order, edge: edges[0]!, carts, edges, all };
  } catch (error) {
    await Promise.all(all.map(stopApp));
    throw error;
  }
}
