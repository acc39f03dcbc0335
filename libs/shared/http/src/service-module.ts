import type Router from '@koa/router';
import type { Registry } from 'prom-client';
import type { EventBus, RetainedTable } from '@commerce/shared-bus';
import type { StoreConfig } from '@commerce/shared-config';
import type { Db } from '@commerce/shared-db';
import type { Logger } from '@commerce/shared-logging';
import type { Closers } from './closers';
import type { HttpAppOptions } from './http-app';
import type { ReadinessCheck } from './health.middleware';
import type { LeanRoute } from './lean-route';

/** What a process opens for a service that owns a schema and publishes through an outbox. */
export interface ServiceEngines {
  /** The service's own schema. */
  db: Db;
  bus: EventBus;
  logger: Logger;
  /** OUTBOX_POLL_MS: the outbox relay's safety-net poll (decision 66). */
  outboxPollMs: number;
}

/** What every module is given besides its config: its logger, the store, and where to register what it opens. */
export interface ModuleContext {
  logger: Logger;
  store: StoreConfig;
  /** Resources the module opens itself (a mailer, a session store): released at shutdown, or if the start fails. */
  closers: Closers;
}

/**
 * A service as a process runs it, the same in its own process (`startService`) and in the all-in-one: what
 * it serves, what its readiness asks, what it prunes, how it starts and stops. Each service's
 * `<service>.module.ts` builds one from its config and its peers' clients.
 */
export interface ServiceModule {
  /** Its internal API (`/internal/<service>`): served by its own process; the all-in-one calls it in process. */
  internalRouters?: Router[];
  /** Internal routes answered before the app's middleware (decision 63), with `internalRouters`. */
  leanRoutes?: LeanRoute[];
  /** Its part of the public interfaces: served by its own process and by the all-in-one. */
  publicRouters?: Router[];
  /** What the app of the public routers needs (the checkout's envelope, session, CORS, request budget). */
  app?: Pick<HttpAppOptions, 'errorBody' | 'beforeBody' | 'cors' | 'requestBudgetMs' | 'bodyLimit'>;
  /** Readiness checks besides the database, which the process checks for every module with a schema. */
  readiness?: ReadinessCheck[];
  metricsRegistries?: Registry[];
  /** Set when it has an outbox: its sent rows and dedupe records are pruned, and these tables of its own. */
  retention?: RetainedTable[];
  /** Once built: subscribes its consumers, starts its relay and clocks. */
  start?(): Promise<void>;
  stop?(): Promise<void>;
}

/** Just the engines of a module's context, for its service's build function. */
export const enginesOf = ({ db, bus, logger, outboxPollMs }: ServiceEngines): ServiceEngines => ({ db, bus, logger, outboxPollMs });
