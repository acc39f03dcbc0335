import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import type Koa from 'koa';
import type { Logger } from '@commerce/shared-logging';
import { markShuttingDown } from './app-state';
import { withLeanRoutes, type LeanRoute } from './lean-route';
import type { CorsPolicy } from './cors';

export interface ServeOptions {
  port: number;
  host?: string;
  /**
   * SO_REUSEPORT (Linux): other processes listening on the same port with it too share its connections, the
   * kernel choosing a listener for each new one (decision 86).
   */
  reusePort?: boolean;
  logger: Logger;
  /** Run in order after the last request has finished: consumers, relays, pools. */
  onShutdown?: Array<() => Promise<void>>;
  shutdownTimeoutMs?: number;
  /** Internal routes answered before the app (decision 63). */
  leanRoutes?: LeanRoute[];
  /** The app's CORS policy (decision 118), for the lean routes' answers. */
  cors?: CorsPolicy;
  /** The app's request budget (decision 132), for the lean routes. */
  requestBudgetMs?: number;
}

export interface RunningServer {
  server: http.Server;
  /** The port actually bound (useful with port 0). */
  port: number;
  url: string;
  close(): Promise<void>;
}

// Above the 60 s idle timeout of the usual load balancers, so they, not we, close idle sockets
// (otherwise a request can race our close and fail with a reset).
const KEEP_ALIVE_TIMEOUT_MS = 65_000;
/** How long a shutdown keeps idle kept-alive sockets for a request already on its way (see shutdown). */
const IDLE_DRAIN_MS = 1_000;

/** Listens with the app; close() is the graceful shutdown a SIGTERM asks for. */
export async function serve(app: Koa, options: ServeOptions): Promise<RunningServer> {
  const {
    port,
    host,
    reusePort = false,
    logger,
    onShutdown = [],
    shutdownTimeoutMs = 10_000,
    leanRoutes = [],
    cors,
    requestBudgetMs,
  } = options;
  const callback = app.callback();
  const server = http.createServer(leanRoutes.length ? withLeanRoutes(app, leanRoutes, logger, callback, cors, requestBudgetMs) : callback);
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1_000;
  const inFlight = new Set<http.ServerResponse>();
  server.on('request', (_req: http.IncomingMessage, res: http.ServerResponse) => {
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once('error', onError);
    server.listen({ port, ...(host ? { host } : {}), ...(reusePort ? { reusePort } : {}) }, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = host && host !== '0.0.0.0' && host !== '::' ? (host.includes(':') ? `[${host}]` : host) : '127.0.0.1';
  const url = `http://${urlHost}:${address.port}`;
  logger.info({ port: address.port, host: host ?? '::' }, `listening on ${url}`);

  const shutdown = async (): Promise<void> => {
    logger.info('shutting down: refusing new connections, finishing requests in flight');
    markShuttingDown(app);
    // net.Server's close: stops listening and resolves once every connection is gone. (http.Server's own close()
    // also closes the idle kept-alive connections at once, which the drain below does later.)
    const closed = new Promise<void>((resolve) => net.Server.prototype.close.call(server, () => resolve()));
    // Idle keep-alive sockets would hold close() open until their timeout. A client may be sending on one right
    // now (a pod's old connections outlive its removal from the Service): each is answered, with `Connection:
    // close`, and closed once its response is out; those still idle after IDLE_DRAIN_MS are closed then, when no
    // client using them has been left without an answer (a rolling update under load failed requests otherwise).
    const drained = setTimeout(() => server.closeIdleConnections(), IDLE_DRAIN_MS);
    void closed.then(() => clearTimeout(drained));
    const closeWhenIdle = (): void => {
      setImmediate(() => server.closeIdleConnections());
    };
    server.on('request', (_req: http.IncomingMessage, res: http.ServerResponse) => res.once('finish', closeWhenIdle));
    for (const res of inFlight) res.once('finish', closeWhenIdle);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), shutdownTimeoutMs);
    });
    const outcome = await Promise.race([closed.then(() => 'closed' as const), timedOut]);
    clearTimeout(timer);
    if (outcome === 'timeout') {
      logger.warn({ shutdownTimeoutMs }, 'requests still in flight after the shutdown timeout; closing their connections');
      server.closeAllConnections();
      await closed;
    }
    const failures: unknown[] = [];
    for (const hook of onShutdown) {
      try {
        await hook();
      } catch (err) {
        logger.error({ err }, 'shutdown hook failed');
        failures.push(err);
      }
    }
    if (failures.length > 0) throw new AggregateError(failures, `${failures.length} shutdown hook(s) failed`);
    logger.info('shut down');
  };

  let closing: Promise<void> | undefined;
  return {
    server,
    port: address.port,
    url,
    close: () => (closing ??= shutdown()),
  };
}
