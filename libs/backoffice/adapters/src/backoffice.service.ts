import type { Router } from '@koa/router';
import { receiveEntities, type PasswordHasher, type SoapUser } from '@commerce/backoffice-core';
import { OutboxRelay, type EventBus } from '@commerce/shared-bus';
import { migrate, type Db } from '@commerce/shared-db';
import type { Logger } from '@commerce/shared-logging';
import { backofficeMigrations } from './backoffice.migrations';
import { createReceivedUpsertsStore } from './received-upserts.store';
import { createScryptPasswordHasher } from './scrypt-password.hasher';
import { createSoapRouter } from './soap/soap.router';

export interface BackofficeServiceDeps {
  db: Db;
  bus: EventBus;
  logger: Logger;
  namespace: string;
  users: SoapUser[];
  correlationPrefix?: string;
  soapPath?: string;
  publicUrl?: () => string;
  hasher?: PasswordHasher;
}

export interface BackofficeService {
  router: Router;
  relay: OutboxRelay;
  /** Starts publishing the outbox. */
  start(): void;
  /** Stops the relay after its current round; the router needs no stopping. */
  stop(): Promise<void>;
}

/** The composition of backoffice-soap the apps call: migrations, the use cases on their store, the SOAP router, the outbox relay. */
export async function buildBackofficeService(deps: BackofficeServiceDeps): Promise<BackofficeService> {
  await migrate(deps.db, backofficeMigrations);
  const store = createReceivedUpsertsStore(deps.db);
  const relay = new OutboxRelay(deps.db, deps.bus, { logger: deps.logger });
  const hasher = deps.hasher ?? createScryptPasswordHasher();
  const router = createSoapRouter({
    receiveEntities: async (entity, entities, requestId) => {
      const result = await receiveEntities({ store, hasher }, entity, entities, requestId);
      // Committed: publish now rather than at the relay's next poll, so catalog sees the batch quickly.
      if (result.received > 0) relay.nudge();
      return result;
    },
    users: deps.users,
    namespace: deps.namespace,
    logger: deps.logger,
    ...(deps.correlationPrefix !== undefined ? { correlationPrefix: deps.correlationPrefix } : {}),
    ...(deps.soapPath !== undefined ? { soapPath: deps.soapPath } : {}),
    ...(deps.publicUrl ? { publicUrl: deps.publicUrl } : {}),
    hasher,
  });
  return {
    router,
    relay,
    start: () => relay.start(),
    stop: () => relay.stop(),
  };
}
