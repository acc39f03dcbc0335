import {
  AccountUpsertReceived,
  BackofficeTopics,
  CustomerUpsertReceived,
  PaymentTermsUpsertReceived,
  SalesRepUpsertReceived,
  ShippingTermsUpsertReceived,
} from '@commerce/erp-contracts';
import { applyAccountUpsert, applyCustomerUpsert, applyReferenceUpsert, type BackofficeRepository } from '@commerce/account-core';
import { consumeOnce, type EventEnvelope, type SubscribeOptions } from '@commerce/shared-bus';
import type { Db, Knex } from '@commerce/shared-db';
import type { Logger } from '@commerce/shared-logging';

export const ACCOUNT_UPSERTS_GROUP = 'account-upserts';

type Apply = (repo: BackofficeRepository, envelope: EventEnvelope) => Promise<string>;

/** The account service's entities on `backoffice.upsert.v1`, each parsed with its own event schema and applied by its use case. */
const APPLY: Record<string, Apply> = {
  customer: async (repo, e) => {
    const { customer } = CustomerUpsertReceived.parse(e).payload;
    await applyCustomerUpsert(repo, customer);
    return customer.id;
  },
  account: async (repo, e) => {
    const { account } = AccountUpsertReceived.parse(e).payload;
    await applyAccountUpsert(repo, account);
    return account.id;
  },
  salesrep: async (repo, e) => {
    const { salesrep } = SalesRepUpsertReceived.parse(e).payload;
    await applyReferenceUpsert(repo, 'salesrep', salesrep);
    return salesrep.id;
  },
  paymentterms: async (repo, e) => {
    const { paymentterms } = PaymentTermsUpsertReceived.parse(e).payload;
    await applyReferenceUpsert(repo, 'paymentterms', paymentterms);
    return paymentterms.id;
  },
  shippingterms: async (repo, e) => {
    const { shippingterms } = ShippingTermsUpsertReceived.parse(e).payload;
    await applyReferenceUpsert(repo, 'shippingterms', shippingterms);
    return shippingterms.id;
  },
};

const EVENTS = [
  CustomerUpsertReceived,
  AccountUpsertReceived,
  SalesRepUpsertReceived,
  PaymentTermsUpsertReceived,
  ShippingTermsUpsertReceived,
];

/**
 * Applies the account service's entities backoffice-soap accepted (customers, accounts with their buyers,
 * sales reps, payment and shipping terms; DESIGN §6), as the catalog's upsert consumer does its own: one
 * group, the dedupe record and the change in one transaction, a malformed event retried and then sent
 * to `backoffice.upsert.v1.dlq`, other services' entities skipped. Nothing is published: the ERP knows what
 * it sent (decision 28: no echo).
 */
export function accountUpsertConsumer(deps: {
  db: Db;
  logger: Logger;
  repository: (trx: Knex.Transaction) => BackofficeRepository;
}): SubscribeOptions {
  return {
    groupId: ACCOUNT_UPSERTS_GROUP,
    topics: [BackofficeTopics.UPSERT],
    handle: async (envelope: EventEnvelope) => {
      const entity = (envelope.payload as { entity?: unknown } | null)?.entity;
      const apply = typeof entity === 'string' ? APPLY[entity] : undefined;
      if (!apply) return;
      if (!EVENTS.some((e) => e.matches(envelope))) {
        throw new Error(`account: unsupported ${String(entity)} upsert event ${envelope.type} v${envelope.version} (${envelope.id})`);
      }
      let id = '';
      const applied = await consumeOnce(deps.db, ACCOUNT_UPSERTS_GROUP, envelope, async (trx) => {
        id = await apply(deps.repository(trx), envelope);
      });
      deps.logger.debug({ eventId: envelope.id, entity, externalId: id, applied }, 'account: upsert consumed');
    },
  };
}
