import { currencyFormats, loadStoreConfig } from '@commerce/shared-config';
import { runService, startDbService } from '@commerce/shared-http';
import { buildCartService } from '@commerce/cart-adapters';

// STORE_CONFIG gives the currency formats of the selection's prices.
runService('cart', () =>
  startDbService('cart', 8081, async ({ db }) => {
    const store = loadStoreConfig(process.env['STORE_CONFIG'] ?? 'infra/config/demo-store.json');
    const cart = await buildCartService({ db, currencyFormat: currencyFormats(store) });
    return { routers: [cart.router] };
  }),
);
