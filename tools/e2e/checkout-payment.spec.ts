import { createLogger } from '@commerce/shared-logging';
import { AllInOneConfigSchema } from '../../apps/all-in-one/src/config';
import { startAllInOne } from '../../apps/all-in-one/src/all-in-one';
import { checkoutPaymentContract, paymentDemoCatalog, paymentShopEnv } from './checkout-payment.contract';

/** The all-in-one on embedded adapters (PGlite, in-memory bus and sessions), its stock held for `holdSeconds`. */
async function start(race: number, holdSeconds = 1200) {
  const config = AllInOneConfigSchema.parse({ ...paymentShopEnv(holdSeconds), DATABASE_URL: 'pglite://memory' });
  const running = await startAllInOne(config, createLogger('payment-test', 'silent'), paymentDemoCatalog(race));
  // The demo catalog's events consumed first, not in the first case's time (see checkout-payment.int-spec.ts).
  await running.settled();
  return { url: running.url, close: () => running.close() };
}

// The checkout saga on the all-in-one's embedded adapters.
checkoutPaymentContract('embedded adapters', () => start(10), { race: { visitors: 25, stock: 10 }, shortHold: () => start(1, 1) });
