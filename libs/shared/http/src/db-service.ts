import type Router from '@koa/router';
import type { Registry } from 'prom-client';
import { z } from 'zod';
import { dbServiceEnv, loadConfig } from '@commerce/shared-config';
import { createDbEngineFromConfig, type Db } from '@commerce/shared-db';
import { createLogger, type Logger } from '@commerce/shared-logging';
import { startHttpService } from './http-service';
import type { RunningServer } from './serve';
import type { LeanRoute } from './lean-route';

/**
 * The composition of a service that owns a schema and serves internal HTTP: config from env
 * (PORT, HOST, LOG_LEVEL, DATABASE_URL, DATABASE_SCHEMA, DB_POOL_MAX, DB_ACQUIRE_TIMEOUT_MS), the database with readiness, the routers
 * `build` returns, and a graceful close.
 */
export async function startDbService(
  name: string,
  defaultPort: number,
  build: (deps: {
    db: Db;
    logger: Logger;
  }) => Promise<{ routers: Router[]; leanRoutes?: LeanRoute[]; metricsRegistries?: Registry[]; close?: () => Promise<void> }>,
): Promise<RunningServer> {
  const config = loadConfig(z.object(dbServiceEnv(name, defaultPort)));
  const logger = createLogger(name, config.LOG_LEVEL);
  const engine = await createDbEngineFromConfig(config, logger);
  const db = engine.forSchema(config.DATABASE_SCHEMA);
  const built = await build({ db, logger });
  return startHttpService({
    service: name,
    logger,
    routers: built.routers,
    ...(built.leanRoutes ? { leanRoutes: built.leanRoutes } : {}),
    ...(built.metricsRegistries ? { metricsRegistries: built.metricsRegistries } : {}),
    port: config.PORT,
    host: config.HOST,
    reusePort: config.REUSE_PORT,
    readiness: [{ name: 'database', check: () => db.ping() }],
    onShutdown: [...(built.close ? [built.close] : []), () => engine.close()],
  });
}
