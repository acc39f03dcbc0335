import { z } from 'zod';
import { currencyFormats, loadConfig, loadStoreConfig } from '@commerce/shared-config';
import { runService, startDbService } from '@commerce/shared-http';
import { buildCartService } from '@commerce/cart-adapters';

// STORE_CONFIG gives the currency formats of the selection's prices; required, like in every service
// but the all-in-one, so a deployment never prices in the demo store's currencies by mistake.
runService('cart', async () => {
  const { STORE_CONFIG } = loadConfig(z.object({ STORE_CONFIG: z.string().min(1) }));
  const store = loadStoreConfig(STORE_CONFIG);
  return startDbService('cart', 8081, async ({ db, logger }) => {
    const cart = await buildCartService({ db, logger, currencyFormat: currencyFormats(store) });
    return { routers: [cart.router], leanRoutes: cart.leanRoutes };
  });
});
