import type { z } from 'zod';
import { createEventBus, busNaming, startRetentionPruner, type EventBus, type RetentionPruner } from '@commerce/shared-bus';
import { loadConfig, loadStoreConfig, retentionSettings, type RetentionConfig, type StoreConfig } from '@commerce/shared-config';
import { createDbEngineFromConfig, type Db, type DbEngineConfig } from '@commerce/shared-db';
import { createLogger, type Logger } from '@commerce/shared-logging';
import { startWithClosers, type Closers } from './closers';
import { startHttpService } from './http-service';
import type { RunningServer } from './serve';
import type { ServiceModule } from './service-module';

/** `httpServiceEnv`'s variables: what every service reads. */
interface HttpServiceConfig {
  PORT: number;
  HOST: string;
  REUSE_PORT: boolean;
  LOG_LEVEL: string;
}
type DbConfig = DbEngineConfig & { DATABASE_SCHEMA: string };
type BusConfig = { KAFKA_BROKERS: string } & Parameters<typeof busNaming>[0];

/** What `startService` opened from the config, by the variables it has: a schema, the bus, the store, the relay's poll. */
export type ServiceProcess<C> = { config: C; logger: Logger; closers: Closers } & (C extends DbConfig ? { db: Db } : unknown) &
  (C extends BusConfig ? { bus: EventBus } : unknown) &
  (C extends { STORE_CONFIG: string } ? { store: StoreConfig } : unknown) &
  (C extends { OUTBOX_POLL_MS: number } ? { outboxPollMs: number } : unknown);

const has = <K extends string>(config: object, key: K): config is Record<K, unknown> => key in config;

/**
 * How every service's main starts it: reads its config (a bad variable stops it naming the variable), opens
 * what the config names (the database and the service's schema when it has DATABASE_URL, the bus when it has
 * KAFKA_BROKERS, the store configuration when it has STORE_CONFIG), builds the service's module, starts it,
 * prunes its outbox when it has one and the config has the retention settings, and serves its routes with
 * readiness (its database, and what the module adds) and metrics. Shutdown releases everything, newest
 * first; a start that fails midway releases what it had opened.
 */
export async function startService<S extends z.ZodObject>(
  name: string,
  schema: S & (z.infer<S> extends HttpServiceConfig ? unknown : never),
  build: (process: ServiceProcess<z.infer<S>>) => Promise<ServiceModule>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<RunningServer> {
  const config = loadConfig(schema, env) as z.infer<S> & HttpServiceConfig;
  const logger = createLogger(name, config.LOG_LEVEL);
  return startWithClosers(async (closers) => {
    const opened: Record<string, unknown> = { config, logger, closers };
    let db: Db | undefined;
    if (has(config, 'DATABASE_URL')) {
      const dbConfig = config as unknown as DbConfig;
      const engine = await createDbEngineFromConfig(dbConfig, logger);
      closers.add(() => engine.close());
      opened['db'] = db = engine.forSchema(dbConfig.DATABASE_SCHEMA);
    }
    if (has(config, 'KAFKA_BROKERS')) {
      const busConfig = config as unknown as BusConfig;
      const bus = await createEventBus(busConfig.KAFKA_BROKERS, { clientId: name, logger, ...busNaming(busConfig) });
      closers.add(() => bus.close());
      opened['bus'] = bus;
    }
    if (has(config, 'STORE_CONFIG')) opened['store'] = loadStoreConfig(String(config.STORE_CONFIG));
    if (has(config, 'OUTBOX_POLL_MS')) opened['outboxPollMs'] = config.OUTBOX_POLL_MS;

    const module = await build(opened as ServiceProcess<z.infer<S>>);
    if (module.start) await module.start();
    if (module.stop) closers.add(module.stop);
    let retention: RetentionPruner | undefined;
    if (db && module.retention && has(config, 'RETENTION_INTERVAL_SECONDS')) {
      const settings = retentionSettings(config as unknown as RetentionConfig);
      retention = startRetentionPruner(db, { ...settings, tables: module.retention, logger });
      closers.add(retention.stop);
    }
    const database = db;
    return startHttpService({
      service: name,
      logger,
      ...module.app,
      routers: [...(module.internalRouters ?? []), ...(module.publicRouters ?? [])],
      ...(module.leanRoutes ? { leanRoutes: module.leanRoutes } : {}),
      port: config.PORT,
      host: config.HOST,
      reusePort: config.REUSE_PORT,
      // Not the bus: events go through the outbox, which holds them while Kafka is away (decision 133).
      readiness: [...(database ? [{ name: 'database', check: () => database.ping() }] : []), ...(module.readiness ?? [])],
      metricsRegistries: [...(retention ? [retention.registry] : []), ...(module.metricsRegistries ?? [])],
      onShutdown: closers.all,
    });
  });
}
