import { currencyFormats, loadConfig, loadStoreConfig } from '@commerce/shared-config';
import { runService, startDbService } from '@commerce/shared-http';
import { buildCartService } from '@commerce/cart-adapters';
import { ConfigSchema } from './config';

runService('cart', async () => {
  const { STORE_CONFIG } = loadConfig(ConfigSchema);
  const store = loadStoreConfig(STORE_CONFIG);
  return startDbService('cart', 8081, async ({ db, logger }) => {
    const cart = await buildCartService({ db, logger, currencyFormat: currencyFormats(store) });
    return { routers: [cart.router], leanRoutes: cart.leanRoutes };
  });
});
