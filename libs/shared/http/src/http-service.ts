import type Router from '@koa/router';
import { createHttpApp, type HttpAppOptions } from './http-app';
import { mountRouters } from './mount-routers';
import { serve, type RunningServer } from './serve';
import type { LeanRoute } from './lean-route';

export interface HttpServiceOptions extends HttpAppOptions {
  routers: Router[];
  port: number;
  host?: string;
  /** SO_REUSEPORT: replicas on one host share the port (decision 86). */
  reusePort?: boolean;
  /** Run in order once the server has stopped taking requests: consumers, relays, pools. */
  onShutdown?: Array<() => Promise<void>>;
  /** Internal routes answered without the app's middleware (decision 63); bodies over 64 kB still go to the app. */
  leanRoutes?: LeanRoute[];
}

/** What every service's main does with HTTP: the shared app, its routers, listening, graceful close. */
export async function startHttpService(options: HttpServiceOptions): Promise<RunningServer> {
  const { routers, port, host, reusePort, onShutdown, leanRoutes, ...appOptions } = options;
  // A lean route answers as an internal route of an app without these (decision 63), or opens and
  // envelopes its own requests in their place (decision 67).
  if (
    leanRoutes?.some(
      (route) => appOptions.bodyLimit || ((appOptions.errorBody || appOptions.beforeBody?.length) && !(route.open && route.errorBody)),
    )
  )
    throw new Error(
      `${options.service}: a lean route of an app with errorBody or beforeBody opens and envelopes its own requests; none with a bodyLimit`,
    );
  const app = createHttpApp(appOptions);
  mountRouters(app, routers);
  return serve(app, {
    port,
    logger: options.logger,
    ...(host ? { host } : {}),
    ...(reusePort ? { reusePort } : {}),
    ...(onShutdown ? { onShutdown } : {}),
    ...(leanRoutes ? { leanRoutes } : {}),
    ...(appOptions.cors ? { cors: appOptions.cors } : {}),
    ...(appOptions.requestBudgetMs ? { requestBudgetMs: appOptions.requestBudgetMs } : {}),
  });
}
