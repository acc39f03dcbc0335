import { createLogger } from '@commerce/shared-logging';
import { AllInOneConfigSchema } from '../../apps/all-in-one/src/config';
import { startAllInOne } from '../../apps/all-in-one/src/all-in-one';
import { checkoutPaymentContract, paymentDemoCatalog, PAYMENT_PUBLIC_URL, PAYMENT_TEST_HMAC_KEY } from './checkout-payment.contract';

// The checkout saga on the all-in-one's embedded adapters (PGlite, in-memory bus and sessions).
checkoutPaymentContract(
  'embedded adapters',
  async () => {
    const config = AllInOneConfigSchema.parse({
      PORT: '0',
      DATABASE_URL: 'pglite://memory',
      LOG_LEVEL: 'silent',
      GEOIP_DB: 'off',
      PAYMENT_PUBLIC_URL,
      PAYMENT_TEST_HMAC_KEY,
      ARGON2_MEMORY_KIB: '1024',
      ARGON2_ITERATIONS: '1',
    });
    const running = await startAllInOne(config, createLogger('payment-test', 'silent'), paymentDemoCatalog(10));
    return { url: running.url, close: () => running.close() };
  },
  { race: { visitors: 25, stock: 10 } },
);
