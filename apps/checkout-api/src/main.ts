import { loadConfig, loadStoreConfig } from '@commerce/shared-config';
import { runService, startHttpService } from '@commerce/shared-http';
import { createLogger } from '@commerce/shared-logging';
import { createSessionStore } from '@commerce/shared-sessions';
import { createCartHttpClient } from '@commerce/cart-contracts';
import { createAccountHttpClient } from '@commerce/account-contracts';
import { createCatalogHttpClient } from '@commerce/catalog-contracts';
import { createPaymentHttpClient } from '@commerce/payment-contracts';
import { createOrderHttpClient } from '@commerce/order-contracts';
import { StoreView } from '@commerce/checkout-core';
import {
  checkoutErrorBody,
  checkoutSessionMiddleware,
  checkoutSessions,
  createCheckoutRoutes,
  createLoginGuard,
  checkoutCors,
  withGeoip,
  loginLimits,
  createSessionLimit,
  sessionLimits,
} from '@commerce/checkout-adapters';
import { ConfigSchema } from './config';

// The edge: sessions in Redis, the domain services over their internal HTTP APIs.
runService('checkout-api', async () => {
  const config = loadConfig(ConfigSchema);
  const logger = createLogger('checkout-api', config.LOG_LEVEL);
  const view = new StoreView(loadStoreConfig(config.STORE_CONFIG));
  const sessions = await createSessionStore(config.REDIS_URL, { ttlSeconds: config.SESSION_TTL_SECONDS, logger });
  // The guessing limits count in the same Redis as the sessions, so every replica sees the same attempts.
  const loginGuard = createLoginGuard(config.REDIS_URL, loginLimits(config));
  const newSessions = createSessionLimit(config.REDIS_URL, sessionLimits(config));
  const deps = {
    sessions: checkoutSessions(sessions),
    catalog: createCatalogHttpClient(config.CATALOG_URL),
    cart: createCartHttpClient(config.CART_URL, { changeBatch: config.CART_CHANGE_BATCH }),
    account: createAccountHttpClient(config.ACCOUNT_URL),
    orders: createOrderHttpClient(config.ORDER_URL),
    payment: createPaymentHttpClient(config.PAYMENT_URL),
    paymentHoldSeconds: config.PAYMENT_HOLD_SECONDS,
    loginGuard,
    rotateTokenOnLogin: config.SESSION_ROTATE_ON_LOGIN,
    ...(newSessions ? { newSessions } : {}),
    trustProxy: config.LOGIN_TRUST_PROXY,
    view,
    productCacheMs: config.PRODUCT_CACHE_MS,
    ...(config.COUNTRY_HEADER ? { countryHeader: config.COUNTRY_HEADER } : {}),
    ...withGeoip(config),
  };
  // `POST items/{item}` is answered before the app (decision 67); the router has it too, for what that leaves.
  const { router, leanRoutes } = createCheckoutRoutes(deps);
  return startHttpService({
    service: 'checkout-api',
    logger,
    routers: [router],
    leanRoutes,
    errorBody: checkoutErrorBody,
    beforeBody: [checkoutSessionMiddleware(deps)],
    ...checkoutCors(config),
    port: config.PORT,
    host: config.HOST,
    reusePort: config.REUSE_PORT,
    requestBudgetMs: config.REQUEST_BUDGET_MS,
    readiness: [{ name: 'sessions', check: () => sessions.ping() }],
    onShutdown: [() => sessions.close(), () => loginGuard.close(), async () => newSessions?.close()],
  });
});
