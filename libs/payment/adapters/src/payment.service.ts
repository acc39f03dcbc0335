import type Router from '@koa/router';
import { currencyFormats, type StoreConfig } from '@commerce/shared-config';
import { OutboxRelay, type EventBus } from '@commerce/shared-bus';
import { migrate, type Db } from '@commerce/shared-db';
import type { Logger } from '@commerce/shared-logging';
import type { PaymentClient } from '@commerce/payment-contracts';
import { paymentUseCases, type PaymentUseCases } from '@commerce/payment-core';
import { paymentMigrations } from './payment.migrations';
import { createAttemptRepository } from './attempt.knex-repository';
import { createPaymentInternalRouter } from './payment.internal-routes';
import { createPaymentPagesRouter } from './payment.pages';
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
  now?: () => Date;
}

export interface PaymentService {
  /** The use cases as a typed client: the in-process implementation of PaymentClient. */
  client: PaymentClient;
  useCases: PaymentUseCases;
  /** `/internal/payment`: the edge's questions. */
  router: Router;
  /** `/payment`: the test providers' pages and the providers' webhooks (public, through the ingress). */
  pages: Router;
  relay: OutboxRelay;
  start(): Promise<void>;
  stop(): Promise<void>;
}

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
    ...(deps.now ? { now: deps.now } : {}),
  });
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
  return {
    client,
    useCases: notifying,
    router: createPaymentInternalRouter(client),
    pages: createPaymentPagesRouter(notifying, {
      settings: deps.testProviders,
      hosted: names(['test', 'test-form']),
      embedded: names(['test-embedded']),
      minorDigits,
    }),
    relay,
    async start() {
      relay.start();
    },
    async stop() {
      await relay.stop();
    },
  };
}
