import type { z } from 'zod';
import { StoreView, type CheckoutDeps } from '@commerce/checkout-core';
import type { ModuleContext, ServiceModule } from '@commerce/shared-http';
import { createSessionStore, type SessionStore } from '@commerce/shared-sessions';
import { checkoutWaits, timedStages } from './checkout-waits';
import { checkoutCors, type corsEnv } from './checkout-cors';
import type { checkoutEdgeEnv } from './checkout.env';
import { checkoutErrorBody, checkoutSessionMiddleware, createCheckoutRoutes } from './checkout.routes';
import { withGeoip, type geoipEnv } from './geoip';
import { createLoginGuard, loginLimits, type loginGuardEnv } from './login-guard.adapter';
import type { paymentHoldEnv } from './payment.routes';
import { createSessionLimit, sessionLimits } from './session-limit.adapter';
import { checkoutSessions, type sessionEnv } from './session.adapter';

type EnvOf<T extends () => z.ZodRawShape> = z.infer<z.ZodObject<ReturnType<T>>>;

export type CheckoutModuleConfig = EnvOf<typeof sessionEnv> &
  EnvOf<typeof checkoutEdgeEnv> &
  EnvOf<typeof paymentHoldEnv> &
  EnvOf<typeof loginGuardEnv> &
  EnvOf<typeof geoipEnv> &
  EnvOf<typeof corsEnv> & { REDIS_URL: string };

/** The domain services as the edge reaches them: over their internal HTTP APIs, or in process in the all-in-one. */
export type CheckoutPeers = Pick<CheckoutDeps, 'catalog' | 'cart' | 'account' | 'orders' | 'payment'>;

/**
 * The checkout edge as a process runs it (checkout-api, or the all-in-one): sessions in REDIS_URL's store, the
 * guessing limits and the new-session limit counted there too, the store's view, the checkout JSON API (a
 * public interface) with its envelope, session and CORS, sessions in its readiness.
 */
export async function checkoutModule(
  config: CheckoutModuleConfig,
  context: ModuleContext & { peers: CheckoutPeers },
): Promise<ServiceModule & { deps: CheckoutDeps; sessions: SessionStore }> {
  const { logger, closers } = context;
  const sessions = await createSessionStore(config.REDIS_URL, { ttlSeconds: config.SESSION_TTL_SECONDS, logger });
  closers.add(() => sessions.close());
  // The guessing limits count in the same Redis as the sessions, so every replica sees the same attempts.
  const loginGuard = createLoginGuard(config.REDIS_URL, loginLimits(config));
  closers.add(() => loginGuard.close());
  const newSessions = createSessionLimit(config.REDIS_URL, sessionLimits(config), { store: sessions });
  if (newSessions) closers.add(() => newSessions.close());
  // What a request waits on, stage by stage, at /metrics (issue 28).
  const waits = checkoutWaits();
  const deps = timedStages(
    {
      sessions: checkoutSessions(sessions),
      ...context.peers,
      paymentHoldSeconds: config.PAYMENT_HOLD_SECONDS,
      loginGuard,
      rotateTokenOnLogin: config.SESSION_ROTATE_ON_LOGIN,
      ...(newSessions ? { newSessions } : {}),
      trustProxy: config.LOGIN_TRUST_PROXY,
      view: new StoreView(context.store),
      productCacheMs: config.PRODUCT_CACHE_MS,
      ...(config.COUNTRY_HEADER ? { countryHeader: config.COUNTRY_HEADER } : {}),
      ...withGeoip(config),
    },
    waits.timed,
  );
  // `POST items/{item}`, `GET selection`, `POST payment` and `payment-result` are answered before the app (decisions 67,
  // 82, 199); the router has them too, for what those leave.
  const { router, leanRoutes } = createCheckoutRoutes(deps);
  return {
    deps,
    sessions,
    publicRouters: [router],
    leanRoutes,
    app: {
      errorBody: checkoutErrorBody,
      beforeBody: [checkoutSessionMiddleware(deps)],
      ...checkoutCors(config),
      requestBudgetMs: config.REQUEST_BUDGET_MS,
    },
    readiness: [{ name: 'sessions', check: () => sessions.ping() }],
    metricsRegistries: [waits.registry],
  };
}
