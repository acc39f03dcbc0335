import { z } from 'zod';
import { defineEvent } from '@commerce/shared-events';
import { CancelledLineSchema, OrderSchema, OrderShipmentSchema } from './order.dto';

export const OrderTopics = {
  ORDER: 'order.order.v1',
} as const;

/*
 * `order.order.v1`, keyed by the order's id so one order's events stay in order. Each event carries the
 * whole order as it is after the change (event-carried state): the catalog (stock), the cart (closing the
 * selection) and the back office's change feed (the order in its SOAP shape) need nothing else.
 */

/** An order was placed (status `untouched`). */
export const OrderPlaced = defineEvent({
  topic: OrderTopics.ORDER,
  type: 'OrderPlaced',
  version: 1,
  schema: z.object({ order: OrderSchema }),
});

/** The back office changed an order's status. */
export const OrderStatusChanged = defineEvent({
  topic: OrderTopics.ORDER,
  type: 'OrderStatusChanged',
  version: 1,
  schema: z.object({ order: OrderSchema, previousStatus: z.string(), status: z.string() }),
});

/** The back office reported shipments of an order (the new ones). */
export const OrderShipped = defineEvent({
  topic: OrderTopics.ORDER,
  type: 'OrderShipped',
  version: 1,
  schema: z.object({ order: OrderSchema, shipments: z.array(OrderShipmentSchema).min(1) }),
});

/** The back office cancelled lines (quantities) of an order. */
export const OrderCancelled = defineEvent({
  topic: OrderTopics.ORDER,
  type: 'OrderCancelled',
  version: 1,
  schema: z.object({ order: OrderSchema, cancelled: z.array(CancelledLineSchema).min(1) }),
});

/** The back office added or changed an invoice of an order. */
export const OrderInvoiced = defineEvent({
  topic: OrderTopics.ORDER,
  type: 'OrderInvoiced',
  version: 1,
  schema: z.object({ order: OrderSchema, invoice: z.string() }),
});

export const ORDER_EVENTS = [OrderPlaced, OrderStatusChanged, OrderShipped, OrderCancelled, OrderInvoiced] as const;
