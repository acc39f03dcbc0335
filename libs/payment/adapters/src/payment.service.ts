import type Router from '@koa/router';
import type { LeanRoute } from '@commerce/shared-http';
import { currencyFormats, type StoreConfig } from '@commerce/shared-config';
import { OutboxRelay, type EventBus } from '@commerce/shared-bus';
import { migrate, type Db } from '@commerce/shared-db';
import type { Logger } from '@commerce/shared-logging';
import type { PaymentClient } from '@commerce/payment-contracts';
import { paymentUseCases, type PaymentUseCases, type SweepOutcome } from '@commerce/payment-core';
import { paymentMigrations } from './payment.migrations';
import { createAttemptRepository } from './attempt.knex-repository';
import { createPaymentInternalRouter, createPaymentLeanRoutes } from './payment.internal-routes';
import { createPaymentPages } from './payment.pages';
import { paymentProviders } from './payment-providers';
import type { TestProviderSettings } from './providers/test-provider.settings';

export interface PaymentServiceDeps {
  db: Db;
  bus: EventBus;
  logger: Logger;
  /** The outbox relay's safety-net poll (`OUTBOX_POLL_MS`; default 1 s): writes nudge the relay at commit. */
  outboxPollMs?: number;
  store: StoreConfig;
  /** The built-in test providers' public address and signing key. */
  testProviders: TestProviderSettings;
  /** `PAYMENT_ATTEMPT_EXPIRY_MINUTES`: a started attempt older than this is expired by the sweep (default a day). */
  attemptExpiryMinutes?: number;
  /** How often the sweep runs (default a minute; the first run at start). */
  sweepIntervalMs?: number;
  now?: () => Date;
}

export interface PaymentService {
  /** The use cases as a typed client: the in-process implementation of PaymentClient. */
  client: PaymentClient;
  useCases: PaymentUseCases;
  /** `/internal/payment`: the edge's questions. */
  router: Router;
  /**
   * A checkout's start and result, and the test page's Approve, on lean routes before the app (decision 63), served by
   * the payment process.
   */
  leanRoutes: LeanRoute[];
  /** `/payment`: the test providers' pages and the providers' webhooks (public, through the ingress). */
  pages: Router;
  relay: OutboxRelay;
  /** The sweep's next run now (tests); the service runs it every `sweepIntervalMs` once started. */
  sweep(): Promise<SweepOutcome>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

const DEFAULT_SWEEP_INTERVAL_MS = 60_000;

/** Composition of the payment service: migrations, providers from the store configuration, use cases, routes, outbox relay. */
export async function buildPaymentService(deps: PaymentServiceDeps): Promise<PaymentService> {
  const formats = currencyFormats(deps.store);
  const minorDigits = (currency: string) => formats(currency).decimalDigits;
  const providers = paymentProviders(deps.store, deps.testProviders, minorDigits);
  await migrate(deps.db, paymentMigrations);
  // Every write nudges the relay; the poll only catches what a crash left behind, so it can be slow.
  const relay = new OutboxRelay(deps.db, deps.bus, { logger: deps.logger, intervalMs: deps.outboxPollMs });
  const useCases = paymentUseCases({
    attempts: createAttemptRepository(deps.db),
    methods: deps.store.paymentMethods,
    providers,
    ...(deps.attemptExpiryMinutes ? { attemptExpiryMs: deps.attemptExpiryMinutes * 60_000 } : {}),
    ...(deps.now ? { now: deps.now } : {}),
  });
  /** One sweep run, logged: what it expired and voided, each provider call that failed (tried again next run). */
  const sweep = async (): Promise<SweepOutcome> => {
    const outcome = await useCases.sweep();
    if (outcome.expired > 0) deps.logger.info({ expired: outcome.expired }, 'payment sweep: abandoned started attempts expired');
    if (outcome.voided > 0)
      deps.logger.warn(
        { voided: outcome.voided },
        'payment sweep: second authorizations of a selection voided at the provider: check their orders',
      );
    for (const failure of outcome.failures)
      deps.logger.warn(
        { attemptId: failure.attemptId, err: failure.error },
        'payment sweep: the provider did not answer; tried again at the next run',
      );
    return outcome;
  };
  let sweeping: Promise<unknown> | undefined;
  let sweepTimer: NodeJS.Timeout | undefined;
  // One run at a time: a run still going (a slow provider) lets the next tick pass.
  const runSweep = () => {
    sweeping ??= sweep()
      .catch((error: unknown) => deps.logger.warn({ err: error }, 'payment sweep failed; tried again at the next run'))
      .finally(() => (sweeping = undefined));
  };
  // Every state change enqueues an event, and enqueue nudges the relay at commit (decision 66).
  const client: PaymentClient = {
    startAttempt: (c) => useCases.startAttempt(c),
    verifyResult: (f) => useCases.verifyResult(f),
    liveAttemptOf: (s) => useCases.liveAttemptOf(s),
    getAttempt: (id) => useCases.getAttempt(id),
    cancelAttempt: (id) => useCases.cancelAttempt(id),
    voidAttempt: (id) => useCases.voidAttempt(id),
    addressSearch: (m, c, i) => useCases.addressSearch(m, c, i),
  };
  const notifying: PaymentUseCases = useCases;
  const names = (kinds: string[]) => [...providers.keys()].filter((p) => kinds.includes(p));
  const pages = createPaymentPages(notifying, {
    settings: deps.testProviders,
    hosted: names(['test', 'test-form']),
    embedded: names(['test-embedded']),
    minorDigits,
  });
  return {
    client,
    useCases: notifying,
    router: createPaymentInternalRouter(client),
    leanRoutes: [...createPaymentLeanRoutes(client), ...pages.leanRoutes],
    pages: pages.router,
    relay,
    sweep,
    async start() {
      relay.start();
      runSweep();
      sweepTimer = setInterval(runSweep, deps.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS);
      sweepTimer.unref();
    },
    async stop() {
      clearInterval(sweepTimer);
      await sweeping;
      await relay.stop();
    },
  };
}
