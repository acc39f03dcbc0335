import { z } from 'zod';
import { env, loadConfig, loadStoreConfig } from '@commerce/shared-config';
import { createDbEngine } from '@commerce/shared-db';
import { runService, startHttpService } from '@commerce/shared-http';
import { createLogger } from '@commerce/shared-logging';
import { buildCartService } from '@commerce/cart-adapters';

const ConfigSchema = z.object({
  PORT: env.port(8081),
  HOST: z.string().default('0.0.0.0'),
  LOG_LEVEL: env.logLevel,
  DATABASE_URL: env.databaseUrl,
  DATABASE_SCHEMA: z.string().regex(/^[a-z_][a-z0-9_]*$/).default('cart'),
  STORE_CONFIG: z.string().min(1),
});

runService('cart', async () => {
  const config = loadConfig(ConfigSchema);
  const logger = createLogger('cart', config.LOG_LEVEL);
  const store = loadStoreConfig(config.STORE_CONFIG);
  const currencies = new Map(store.currencies.map((c) => [c.currency, c]));
  const engine = await createDbEngine(config.DATABASE_URL, { logger });
  const db = engine.forSchema(config.DATABASE_SCHEMA);
  const cart = await buildCartService({
    db,
    currencyFormat: (currency) => {
      const format = currencies.get(currency);
      if (!format) throw new Error(`currency ${currency} is not configured`);
      return format;
    },
  });
  return startHttpService({
    service: 'cart',
    logger,
    routers: [cart.router],
    port: config.PORT,
    host: config.HOST,
    readiness: [{ name: 'database', check: () => db.ping() }],
    onShutdown: [() => engine.close()],
  });
});
