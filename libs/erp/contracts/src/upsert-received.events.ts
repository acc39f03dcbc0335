import { z } from 'zod';
import { defineEvent, type EventDefinition } from '@commerce/shared-events';
import {
  ReceivedAccountSchema,
  SoapCustomerSchema,
  SoapDeliveryWindowSchema,
  SoapInvoiceSchema,
  SoapMarketSchema,
  SoapOrderSchema,
  SoapPaymentTermsSchema,
  SoapPricelistSchema,
  SoapProductSchema,
  SoapSalesRepSchema,
  SoapShippingTermsSchema,
  SoapSizeSchema,
  SoapWarehouseSchema,
} from './soap-entities';

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

export const upsertKey = (entity: UpsertEntity, externalId: string): string => `${entity}:${externalId}`;

/** What every SOAP entity has: the id the ERP gave it. */
type EntitySchema = z.ZodType<{ id: string }>;

/** The payload of an `<Entity>UpsertReceived`: `{entity: 'size', size: {…}}`. */
export type UpsertPayloadSchema<E extends UpsertEntity, S extends EntitySchema> = z.ZodObject<
  { entity: z.ZodLiteral<E> } & { [K in E]: S },
  z.core.$strip
>;

/** One event type per entity on `backoffice.upsert.v1`, all of one shape. */
export interface UpsertReceivedEvent<E extends UpsertEntity, S extends EntitySchema> extends EventDefinition<UpsertPayloadSchema<E, S>> {
  entity: E;
  /** The entity's own schema, which backoffice-soap validates each entity of a batch against. */
  entitySchema: S;
  /** The envelope of one accepted entity, keyed `<entity>:<id>` so one entity's upserts stay in order. */
  envelopeOf(data: z.output<S>, requestId?: string): ReturnType<EventDefinition<UpsertPayloadSchema<E, S>>['create']>;
  /** envelopeOf for an entity that is the output of `entitySchema.parse` itself: not validated a second time. */
  envelopeOfParsed(data: z.output<S>, requestId?: string): ReturnType<EventDefinition<UpsertPayloadSchema<E, S>>['create']>;
}

function upsertReceived<E extends UpsertEntity, S extends EntitySchema>(
  entity: E,
  type: string,
  entitySchema: S,
): UpsertReceivedEvent<E, S> {
  const schema = z.object({ entity: z.literal(entity), [entity]: entitySchema }) as unknown as UpsertPayloadSchema<E, S>;
  const event = defineEvent({ topic: BackofficeTopics.UPSERT, type, version: 1, schema });
  return {
    ...event,
    entity,
    entitySchema,
    envelopeOf: (data, requestId) =>
      event.create(upsertKey(entity, data.id), { entity, [entity]: data } as unknown as z.infer<UpsertPayloadSchema<E, S>>, requestId),
    envelopeOfParsed: (data, requestId) =>
      event.createParsed(
        upsertKey(entity, data.id),
        { entity, [entity]: data } as unknown as z.infer<UpsertPayloadSchema<E, S>>,
        requestId,
      ),
  };
}

/*
 * Entities accepted from the ERP and durably stored by backoffice-soap; the owning service (DESIGN §6)
 * applies them. Payload `{entity, <entity>}`; key `<entity>:<external id>`.
 */
export const ProductUpsertReceived = upsertReceived('product', 'ProductUpsertReceived', SoapProductSchema);
export const SizeUpsertReceived = upsertReceived('size', 'SizeUpsertReceived', SoapSizeSchema);
export const PricelistUpsertReceived = upsertReceived('pricelist', 'PricelistUpsertReceived', SoapPricelistSchema);
export const MarketUpsertReceived = upsertReceived('market', 'MarketUpsertReceived', SoapMarketSchema);
export const WarehouseUpsertReceived = upsertReceived('warehouse', 'WarehouseUpsertReceived', SoapWarehouseSchema);
export const DeliveryWindowUpsertReceived = upsertReceived('deliverywindow', 'DeliveryWindowUpsertReceived', SoapDeliveryWindowSchema);
/** The account as received, except that each buyer's password is its hash (`passwordhash`: argon2id, decision 54). */
export const AccountUpsertReceived = upsertReceived('account', 'AccountUpsertReceived', ReceivedAccountSchema);
export const CustomerUpsertReceived = upsertReceived('customer', 'CustomerUpsertReceived', SoapCustomerSchema);
export const SalesRepUpsertReceived = upsertReceived('salesrep', 'SalesRepUpsertReceived', SoapSalesRepSchema);
export const PaymentTermsUpsertReceived = upsertReceived('paymentterms', 'PaymentTermsUpsertReceived', SoapPaymentTermsSchema);
export const ShippingTermsUpsertReceived = upsertReceived('shippingterms', 'ShippingTermsUpsertReceived', SoapShippingTermsSchema);
export const OrderUpsertReceived = upsertReceived('order', 'OrderUpsertReceived', SoapOrderSchema);
export const InvoiceUpsertReceived = upsertReceived('invoice', 'InvoiceUpsertReceived', SoapInvoiceSchema);

/** Every entity's event by its entity name: what backoffice-soap publishes for a `*_Update`. */
export const UpsertReceivedEvents = {
  product: ProductUpsertReceived,
  size: SizeUpsertReceived,
  pricelist: PricelistUpsertReceived,
  market: MarketUpsertReceived,
  warehouse: WarehouseUpsertReceived,
  deliverywindow: DeliveryWindowUpsertReceived,
  account: AccountUpsertReceived,
  customer: CustomerUpsertReceived,
  salesrep: SalesRepUpsertReceived,
  paymentterms: PaymentTermsUpsertReceived,
  shippingterms: ShippingTermsUpsertReceived,
  order: OrderUpsertReceived,
  invoice: InvoiceUpsertReceived,
} as const satisfies { [E in UpsertEntity]: UpsertReceivedEvent<E, EntitySchema> };
export type ReceivableEntity = keyof typeof UpsertReceivedEvents;
