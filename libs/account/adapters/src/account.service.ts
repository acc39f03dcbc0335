import { randomBytes } from 'node:crypto';
import type Router from '@koa/router';
import { migrate, type Db } from '@commerce/shared-db';
import { OutboxRelay, type EventBus, type Subscription } from '@commerce/shared-bus';
import type { Logger } from '@commerce/shared-logging';
import type { AccountClient } from '@commerce/account-contracts';
import type { CatalogClient } from '@commerce/catalog-contracts';
import { accountUseCases, deliverResetMail, type AccountDeps, type Mailer } from '@commerce/account-core';
import { accountMigrations } from './account.migrations';
import { createCustomerRepository } from './customer.knex-repository';
import { createResetTokenRepository } from './reset-token.knex-repository';
import { createSubscriptionRepository } from './subscription.knex-repository';
import { createAccountInternalRouter } from './account.internal-routes';
import { ARGON2_DEFAULTS, createArgon2Hasher, type Argon2Params } from './argon2.password-hasher';
import { backInStockConsumer } from './consumers/back-in-stock.consumer';
import { accountUpsertConsumer } from './consumers/upsert-received.consumer';
import { createBackofficeRepository } from './backoffice.knex-repository';
import { createResetMailRelay, type ResetMailRelayOptions } from './reset-mail.relay';

export interface AccountService {
  /** The use cases as a typed client: the in-process implementation of AccountClient. */
  client: AccountClient;
  router: Router;
  /**
   * Starts the reset-mail relay; with a bus, subscribes the consumers (the back office's customers, accounts,
   * sales reps and terms; back-in-stock mails from the catalog's product events) and starts the outbox relay
   * (`account.customer.v1`).
   */
  start(): Promise<void>;
  /** Stops the consumers and the relays, waiting for mails still being sent. */
  stop(): Promise<void>;
  /** Resolves when every reset mail due now has been dealt with (sent, or waiting for a retry); for tests. */
  settled(): Promise<void>;
}

export interface AccountServiceDeps {
  db: Db;
  argon2?: Argon2Params;
  mailer: Mailer;
  /** The store's frontend URL (password-reset links); without it password-reset-email answers 503. */
  frontendUrl?: string | undefined;
  /** How long a reset link works (default 60 minutes). */
  resetTtlMinutes?: number;
  logger?: Logger;
  /** The outbox relay's safety-net poll (`OUTBOX_POLL_MS`; default 1 s): writes nudge the relay at commit. */
  outboxPollMs?: number;
  /** For back-in-stock mails: the catalog's product events and the stock of an item. */
  bus?: EventBus;
  catalog?: Pick<CatalogClient, 'getItem'>;
  /** Retry and poll timing of the reset mails (tests shorten it). */
  resetMails?: Omit<ResetMailRelayOptions, 'logger' | 'now'>;
  now?: () => Date;
}

/** Composition of the account service: migrations, repositories, hasher (and its dummy hash), use cases, internal routes, consumers. */
export async function buildAccountService(deps: AccountServiceDeps): Promise<AccountService> {
  await migrate(deps.db, accountMigrations);
  const hasher = createArgon2Hasher(deps.argon2 ?? ARGON2_DEFAULTS);
  const dummyHash = await hasher.hash(randomBytes(24).toString('base64url'));
  const subscriptions = createSubscriptionRepository(deps.db);
  const resetMails = createResetMailRelay(deps.db, (request) => deliverResetMail(accountDeps, request), {
    ...deps.resetMails,
    ...(deps.logger ? { logger: deps.logger } : {}),
    ...(deps.now ? { now: deps.now } : {}),
  });
  const accountDeps: AccountDeps = {
    customers: createCustomerRepository(deps.db),
    resetTokens: createResetTokenRepository(deps.db),
    subscriptions,
    hasher,
    dummyHash,
    mailer: deps.mailer,
    passwordReset: { frontendUrl: deps.frontendUrl, ttlMinutes: deps.resetTtlMinutes ?? 60 },
    resetMails,
    ...(deps.now ? { now: deps.now } : {}),
  };
  const client = accountUseCases(accountDeps);
  let consumers: Subscription[] = [];
  const relay = deps.bus ? new OutboxRelay(deps.db, deps.bus, { ...(deps.logger ? { logger: deps.logger } : {}), intervalMs: deps.outboxPollMs }) : undefined;
  return {
    client,
    router: createAccountInternalRouter(client),
    async start() {
      resetMails.start();
      if (!deps.bus || !deps.logger) return;
      const db = deps.db;
      consumers = [
        await deps.bus.subscribe(
          accountUpsertConsumer({ db, logger: deps.logger, repository: (trx) => createBackofficeRepository(db, trx) }),
        ),
      ];
      if (deps.catalog) {
        consumers.push(
          await deps.bus.subscribe(backInStockConsumer({ subscriptions, mailer: deps.mailer, catalog: deps.catalog, logger: deps.logger })),
        );
      }
      relay?.start();
    },
    async stop() {
      await Promise.all(consumers.map((c) => c.stop()));
      consumers = [];
      await relay?.stop();
      await resetMails.stop();
    },
    settled: () => resetMails.drain(),
  };
}
