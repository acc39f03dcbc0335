import { randomUUID } from 'node:crypto';
import { fieldsFromIssues, ValidationError } from '@commerce/shared-errors';
import {
  OrderPlaced,
  ORDER_STATUS_DESCRIPTIONS,
  PLACED_STATUS,
  PlaceOrderCommandSchema,
  type OrderDto,
  type PlaceOrderCommand,
} from '@commerce/order-contracts';
import { systemClock, type Clock, type OrderRepository } from './order.repository';

export interface PlaceOrderDeps {
  orders: OrderRepository;
  clock?: Clock;
}

/**
 * Places the order of a succeeded payment attempt, exactly once per attempt: validate → place it (the store's next
 * number, the order and `OrderPlaced` in its outbox, one atomic write) → when the attempt has an order already (a
 * placing before this one, or one racing it: the attempt's unique key), answer that order; this one's number is given
 * back. The attempt's order is not looked for first (issue 28): a placing meets it at the unique key.
 */
export async function placeOrder(
  deps: PlaceOrderDeps,
  input: PlaceOrderCommand,
  options: { selectionLeftOpen?: boolean } = {},
): Promise<OrderDto> {
  const parsed = PlaceOrderCommandSchema.safeParse(input);
  if (!parsed.success) throw new ValidationError(fieldsFromIssues(parsed.error.issues), 'ORDER.INVALID_COMMAND');
  const command = parsed.data;

  const id = randomUUID();
  const placedAt = (deps.clock ?? systemClock).now().toISOString();
  const placed = await deps.orders.place(
    (number): OrderDto => ({
      ...command,
      id,
      order: number,
      status: PLACED_STATUS,
      statusDescription: ORDER_STATUS_DESCRIPTIONS[PLACED_STATUS]!,
      placedAt,
      shipments: [],
      cancelled: [],
      invoices: [],
      version: 1,
    }),
    // The order is the command just parsed with our own fields beside it: `OrderPlaced`'s schema (the command's, extended)
    // is not run over it a second time (issue 28: a parse of the whole order a checkout).
    (order) => [OrderPlaced.createParsed(order.id, { order })],
    options,
  );
  if (placed) return placed;
  const existing = await deps.orders.findByPaymentAttempt(command.paymentAttemptId);
  if (!existing) throw new Error(`order: attempt ${command.paymentAttemptId} conflicted but has no order`);
  return existing;
}
