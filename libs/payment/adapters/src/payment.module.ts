import type { z } from 'zod';
import { enginesOf, type ModuleContext, type ServiceEngines, type ServiceModule } from '@commerce/shared-http';
import { testProviderSettings, type paymentEnv } from './payment.env';
import { buildPaymentService, type PaymentService } from './payment.service';

export type PaymentModuleConfig = z.infer<z.ZodObject<ReturnType<typeof paymentEnv>>> & { PORT: number };

/**
 * The payment service as a process runs it: attempts in its schema on the store's payment methods, its
 * internal routes, the test providers' pages and webhooks (a public part: `/payment/`), its outbox pruned.
 */
export async function paymentModule(
  config: PaymentModuleConfig,
  context: ServiceEngines & ModuleContext,
): Promise<PaymentService & ServiceModule> {
  const payment = await buildPaymentService({
    ...enginesOf(context),
    store: context.store,
    testProviders: testProviderSettings(config, `http://localhost:${config.PORT}`),
    attemptExpiryMinutes: config.PAYMENT_ATTEMPT_EXPIRY_MINUTES,
  });
  return Object.assign(payment, { internalRouters: [payment.router], publicRouters: [payment.pages], retention: [] });
}
