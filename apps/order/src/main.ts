import { runService, startService } from '@commerce/shared-http';
import { orderModule } from '@commerce/order-adapters';
import { createPaymentHttpClient } from '@commerce/payment-contracts';
import { createStockHttpClient } from '@commerce/catalog-contracts';
import { createCartHttpClient } from '@commerce/cart-contracts';
import { ConfigSchema } from './config';

// Orders, their numbers, shipments and invoices in the service's own schema; the edge places and reads
// them over /internal/order; order.order.v1 leaves through the outbox; the back office's order and
// invoice upserts arrive on backoffice.upsert.v1; a paid attempt is completed (its stock committed at the
// catalog, its order placed, its selection closed at the cart) for the edge and on PaymentAuthorized.
runService('order', () =>
  startService('order', ConfigSchema, ({ config, ...p }) =>
    orderModule(config, {
      ...p,
      saga: {
        payment: createPaymentHttpClient(config.PAYMENT_URL),
        stock: createStockHttpClient(config.CATALOG_URL),
        cart: createCartHttpClient(config.CART_URL),
      },
    }),
  ),
);
