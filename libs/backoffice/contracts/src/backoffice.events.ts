import { z } from 'zod';
import { defineEvent } from '@commerce/shared-events';
import { SoapProductSchema } from './soap-entities';

export const BackofficeTopics = {
  UPSERT: 'backoffice.upsert.v1',
} as const;

/** The entities an ERP can upsert through the SOAP API. */
export const UpsertEntity = z.enum([
  'account',
  'customer',
  'deliverywindow',
  'invoice',
  'market',
  'order',
  'paymentterms',
  'pricelist',
  'product',
  'salesrep',
  'shippingterms',
  'size',
  'warehouse',
]);
export type UpsertEntity = z.infer<typeof UpsertEntity>;

/**
 * A product accepted from the ERP and durably stored by backoffice-soap; `catalog` applies it.
 * Keyed by `product:<external id>` so successive upserts of one product stay in order.
 */
export const ProductUpsertReceived = defineEvent({
  topic: BackofficeTopics.UPSERT,
  type: 'ProductUpsertReceived',
  version: 1,
  schema: z.object({ entity: z.literal('product'), product: SoapProductSchema }),
});

export const upsertKey = (entity: UpsertEntity, externalId: string): string => `${entity}:${externalId}`;
