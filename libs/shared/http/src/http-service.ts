import type Router from '@koa/router';
import { createHttpApp, type HttpAppOptions } from './http-app';
import { mountRouters } from './mount-routers';
import { serve, type RunningServer } from './serve';

export interface HttpServiceOptions extends HttpAppOptions {
  routers: Router[];
  port: number;
  host?: string;
  /** Run in order once the server has stopped taking requests: consumers, relays, pools. */
  onShutdown?: Array<() => Promise<void>>;
}

/** What every service's main does with HTTP: the shared app, its routers, listening, graceful close. */
export async function startHttpService(options: HttpServiceOptions): Promise<RunningServer> {
  const { routers, port, host, onShutdown, ...appOptions } = options;
  const app = createHttpApp(appOptions);
  mountRouters(app, routers);
  return serve(app, { port, logger: options.logger, ...(host ? { host } : {}), ...(onShutdown ? { onShutdown } : {}) });
}
