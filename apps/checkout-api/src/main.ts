import { runService, startService } from '@commerce/shared-http';
import { createCartHttpClient } from '@commerce/cart-contracts';
import { createAccountHttpClient } from '@commerce/account-contracts';
import { createCatalogHttpClient } from '@commerce/catalog-contracts';
import { createPaymentHttpClient } from '@commerce/payment-contracts';
import { createOrderHttpClient } from '@commerce/order-contracts';
import { checkoutModule } from '@commerce/checkout-adapters';
import { ConfigSchema } from './config';

// The edge: sessions in Redis, the domain services over their internal HTTP APIs.
runService('checkout-api', () =>
  startService('checkout-api', ConfigSchema, ({ config, ...p }) =>
    checkoutModule(config, {
      ...p,
      peers: {
        catalog: createCatalogHttpClient(config.CATALOG_URL),
        cart: createCartHttpClient(config.CART_URL, { changeBatch: config.CART_CHANGE_BATCH }),
        account: createAccountHttpClient(config.ACCOUNT_URL),
        orders: createOrderHttpClient(config.ORDER_URL),
        payment: createPaymentHttpClient(config.PAYMENT_URL),
      },
    }),
  ),
);
