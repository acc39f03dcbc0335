import { z } from 'zod';

/**
 * The kinds of change event the SOAP feed carries (`event.type`): the spec's list, plus `stock`, which
 * the spec's `event.data` can hold but its `type` list does not name (so it is fetched with `all`).
 */
export const ChangeEventType = z.enum([
  'account',
  'customer',
  'invoice',
  'market',
  'order',
  'paymentterm',
  'pricelist',
  'salesrep',
  'shippingterm',
  'size',
  'warehouse',
  'stock',
]);
export type ChangeEventType = z.infer<typeof ChangeEventType>;

/** What `events_Get` and `events_GetByMarkets` accept as `type`: one kind, or `all`. */
export const ChangeEventQueryType = z.union([z.literal('all'), ChangeEventType]);
export type ChangeEventQueryType = z.infer<typeof ChangeEventQueryType>;

export const ChangeEventMission = z.enum(['update', 'delete']);
export type ChangeEventMission = z.infer<typeof ChangeEventMission>;

/**
 * The element of `event.data` that holds each kind's entity. The spec's `data` has no element for
 * payment and shipping terms; they use their entities' own names (`paymentterms`, `shippingterms`).
 */
export const CHANGE_EVENT_DATA_ELEMENT = {
  account: 'account',
  customer: 'customer',
  invoice: 'invoice',
  market: 'market',
  order: 'order',
  paymentterm: 'paymentterms',
  pricelist: 'pricelist',
  salesrep: 'salesrep',
  shippingterm: 'shippingterms',
  size: 'size',
  warehouse: 'warehouse',
  stock: 'stock',
} as const satisfies Record<ChangeEventType, string>;
