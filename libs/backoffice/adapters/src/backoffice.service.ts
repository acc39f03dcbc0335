import type { Router } from '@koa/router';
import {
  CHANGE_EVENT_MAPPERS,
  getEvents,
  markEventsDone,
  receiveEntities,
  type ChangeEventMapper,
  type LoginThrottle,
  type PasswordHasher,
  type SoapUser,
} from '@commerce/backoffice-core';
import { OutboxRelay, type EventBus, type Subscription } from '@commerce/shared-bus';
import { migrate, type Db } from '@commerce/shared-db';
import type { Logger } from '@commerce/shared-logging';
import { ARGON2_DEFAULTS, hashArgon2id, type Argon2Params } from '@commerce/account-contracts';
import { backofficeMigrations } from './backoffice.migrations';
import { createReceivedUpsertsStore } from './received-upserts.store';
import { createScryptPasswordHasher } from './scrypt.password-hasher';
import { changeEventsConsumer } from './events/change-events.consumer';
import { createChangeEventStore, pruneChangeEvents } from './events/change-events.store';
import { createSoapRouter } from './soap/soap.router';

export interface BackofficeServiceDeps {
  db: Db;
  bus: EventBus;
  logger: Logger;
  /** The outbox relay's safety-net poll (`OUTBOX_POLL_MS`; default 1 s): writes nudge the relay at commit. */
  outboxPollMs?: number;
  namespace: string;
  users: SoapUser[];
  correlationPrefix?: string;
  soapPath?: string;
  publicUrl?: () => string;
  hasher?: PasswordHasher;
  /** The argon2id cost of buyers' passwords: the account service's (ARGON2_MEMORY_KIB, ARGON2_ITERATIONS; decision 54). */
  buyerPasswords?: Argon2Params;
  /** Count failed logins per the last X-Forwarded-For entry (SOAP_TRUST_PROXY). */
  trustProxy?: boolean;
  /** Failed-login limits (default: 10 a minute per client address, 20 per user name). */
  loginThrottle?: LoginThrottle;
  /**
   * The change-event feed: SOAP_ECHO_EVENTS, the page size of events_Get (default 100), its mappers, and
   * how long events every user has done are kept (default 30 days), pruned every `pruneIntervalMs` (1 h).
   */
  events?: { echo?: boolean; pageSize?: number; mappers?: readonly ChangeEventMapper[]; retentionMs?: number; pruneIntervalMs?: number };
  /**
   * How many entities of an `*_Update` the parse hands to the store at a time (decision 91; default the use
   * case's RECEIVE_CHUNK); 0: none, the batch is parsed whole first (what tests compare against).
   */
  streamPartSize?: number;
  /** SOAP_REQUEST_BUDGET_MS and SOAP_REQUEST_BUDGET_MS_PER_MB (decision 142); absent: no budget. */
  budget?: { baseMs: number; perMbMs: number };
}

export interface BackofficeService {
  router: Router;
  relay: OutboxRelay;
  /** Starts publishing the outbox and consuming the owners' events into the change-event feed. */
  start(): Promise<void>;
  /** Stops the feed's consumer and the relay after its current round; the router needs no stopping. */
  stop(): Promise<void>;
}

export const DEFAULT_EVENTS_PAGE_SIZE = 100;

/** The composition of backoffice-soap the apps call: migrations, the use cases on their store, the SOAP router, the outbox relay. */
export async function buildBackofficeService(deps: BackofficeServiceDeps): Promise<BackofficeService> {
  await migrate(deps.db, backofficeMigrations);
  const store = createReceivedUpsertsStore(deps.db);
  const relay = new OutboxRelay(deps.db, deps.bus, { logger: deps.logger, intervalMs: deps.outboxPollMs });
  const hasher = deps.hasher ?? createScryptPasswordHasher();
  // Buyers log in at the account service, whose hashes are argon2id: a buyer who never logged in then costs
  // a login what anyone costs (decision 54). SOAP users stay on scrypt (decision 30).
  const buyerHasher = { hash: (plain: string) => hashArgon2id(plain, deps.buyerPasswords ?? ARGON2_DEFAULTS) };
  const feed = createChangeEventStore(deps.db);
  const pageSize = deps.events?.pageSize ?? DEFAULT_EVENTS_PAGE_SIZE;
  const consumer = changeEventsConsumer({
    db: deps.db,
    store: feed,
    mappers: deps.events?.mappers ?? CHANGE_EVENT_MAPPERS,
    echo: deps.events?.echo ?? false,
    logger: deps.logger,
  });
  let subscription: Subscription | undefined;
  let pruneTimer: NodeJS.Timeout | undefined;
  const prune = async () => {
    try {
      const deleted = await pruneChangeEvents(deps.db, {
        usernames: deps.users.map((u) => u.username),
        retentionMs: deps.events?.retentionMs ?? 30 * 86_400_000,
        batchSize: 1000,
      });
      if (deleted > 0) deps.logger.info({ deleted }, 'backoffice: change events every user has done pruned');
    } catch (err) {
      deps.logger.error({ err }, 'backoffice: pruning change events failed');
    }
  };
  const router = createSoapRouter({
    // The store nudges the relay when the batch commits (outboxWritten, decision 66).
    receiveEntities: (entity, entities, requestId) => receiveEntities({ store, hasher: buyerHasher }, entity, entities, requestId),
    // A batch handed over as the request is parsed (decision 91): validated and written part by part, one transaction.
    ...(deps.streamPartSize === 0
      ? {}
      : { receiveEntityParts: (entity, parts, requestId) => receiveEntities({ store, hasher: buyerHasher }, entity, parts, requestId) }),
    ...(deps.streamPartSize ? { streamPartSize: deps.streamPartSize } : {}),
    getEvents: (request) => getEvents({ feed, pageSize }, request),
    markEventsDone: (username, numbers) => markEventsDone({ feed }, username, numbers),
    users: deps.users,
    namespace: deps.namespace,
    logger: deps.logger,
    ...(deps.correlationPrefix !== undefined ? { correlationPrefix: deps.correlationPrefix } : {}),
    ...(deps.soapPath !== undefined ? { soapPath: deps.soapPath } : {}),
    ...(deps.publicUrl ? { publicUrl: deps.publicUrl } : {}),
    hasher,
    ...(deps.loginThrottle ? { loginThrottle: deps.loginThrottle } : {}),
    ...(deps.trustProxy ? { trustProxy: true } : {}),
    ...(deps.budget ? { budget: deps.budget } : {}),
  });
  return {
    router,
    relay,
    async start() {
      relay.start();
      if (!subscription && consumer.topics.length > 0) subscription = await deps.bus.subscribe(consumer);
      if (!pruneTimer) {
        pruneTimer = setInterval(() => void prune(), deps.events?.pruneIntervalMs ?? 3_600_000);
        pruneTimer.unref?.();
      }
    },
    async stop() {
      if (pruneTimer) clearInterval(pruneTimer);
      pruneTimer = undefined;
      await subscription?.stop();
      subscription = undefined;
      await relay.stop();
    },
  };
}
