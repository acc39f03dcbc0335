import { AccountTopics, CustomerChanged, CustomerRegistered } from '@commerce/account-contracts';
import type { EventEnvelope } from '@commerce/shared-events';
import type { ChangeEventMapper } from './change-event.mappers';
import { offsetDate } from './offset-date';
import { soapAddressFields } from './soap-address';

const CUSTOMER_EVENTS = [CustomerRegistered, CustomerChanged];

/**
 * `account.customer.v1` (a registration, or an address, profile or e-mail change through the checkout API):
 * a `customer` event with the customer in the spec's SOAP shape. Its `id` is the ERP's when the back office
 * sent the customer, else the account service's id, which the ERP keeps and sends back in `customers_Update`
 * to update the same customer. Changes the ERP makes are not published by the account service (no echo).
 */
export const customerChangeEventMapper: ChangeEventMapper = {
  topic: AccountTopics.CUSTOMER,
  matches: (envelope: EventEnvelope) => CUSTOMER_EVENTS.some((e) => e.matches(envelope)),
  async map(envelope) {
    const definition = CUSTOMER_EVENTS.find((e) => e.matches(envelope))!;
    const { customerId, externalId, address: a } = definition.parse(envelope).payload;
    const id = externalId ?? customerId;
    return [
      {
        type: 'customer',
        entry: id,
        mission: 'update',
        date: offsetDate(envelope.occurredAt),
        data: {
          customer: { id, ...soapAddressFields(a) },
        },
      },
    ];
  },
};
