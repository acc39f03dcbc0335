import { z } from 'zod';
import { defineEvent } from '@commerce/shared-events';
import { ADDRESS_FIELDS } from './account.dto';

export const AccountTopics = {
  CUSTOMER: 'account.customer.v1',
} as const;

/** A customer as its events carry it: the account service's id, the ERP's id when it came from the back office, and the address. */
const CustomerPayload = z.object({
  customerId: z.string(),
  externalId: z.string().optional(),
  address: z.object(Object.fromEntries(ADDRESS_FIELDS.map((f) => [f, z.string()])) as Record<(typeof ADDRESS_FIELDS)[number], z.ZodString>),
});
export type CustomerEventPayload = z.infer<typeof CustomerPayload>;

/** A visitor registered through the checkout API. Keyed by the customer's id. */
export const CustomerRegistered = defineEvent({
  topic: AccountTopics.CUSTOMER,
  type: 'CustomerRegistered',
  version: 1,
  schema: CustomerPayload,
});

/** A customer changed their address, profile or e-mail through the checkout API (never a password). */
export const CustomerChanged = defineEvent({ topic: AccountTopics.CUSTOMER, type: 'CustomerChanged', version: 1, schema: CustomerPayload });
