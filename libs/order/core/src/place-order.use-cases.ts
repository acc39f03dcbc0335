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
import { AttemptAlreadyPlaced } from './order.errors';
import { systemClock, type Clock, type OrderRepository } from './order.repository';

export interface PlaceOrderDeps {
  orders: OrderRepository;
  clock?: Clock;
}

/**
 * Places the order of a succeeded payment attempt, exactly once per attempt: validate → answer the
 * attempt's order when it has one → take the store's next number → insert the order with `OrderPlaced`
 * in its outbox, in one transaction. Two placings of one attempt racing past the first look both take a
 * number in turn; the second finds the attempt's unique key taken, rolls back (giving its number back)
 * and answers the first's order.
 */
export async function placeOrder(
  deps: PlaceOrderDeps,
  input: PlaceOrderCommand,
  options: { selectionLeftOpen?: boolean; lookedNow?: boolean } = {},
): Promise<OrderDto> {
  const parsed = PlaceOrderCommandSchema.safeParse(input);
  if (!parsed.success) throw new ValidationError(fieldsFromIssues(parsed.error.issues), 'ORDER.INVALID_COMMAND');
  const command = parsed.data;

  // `lookedNow`: the caller has just found no order of the attempt (the saga's completion), so it is not read
  // again; a placing that raced past that look meets the unique key below, as any race does.
  const existing = options.lookedNow ? null : await deps.orders.findByPaymentAttempt(command.paymentAttemptId);
  if (existing) return existing;

  try {
    return await deps.orders.transaction(async (uow) => {
      const number = await uow.nextOrderNumber(command.store);
      const order: OrderDto = {
        ...command,
        id: randomUUID(),
        order: String(number),
        status: PLACED_STATUS,
        statusDescription: ORDER_STATUS_DESCRIPTIONS[PLACED_STATUS]!,
        placedAt: (deps.clock ?? systemClock).now().toISOString(),
        shipments: [],
        cancelled: [],
        invoices: [],
        version: 1,
      };
      if (!(await uow.insert(order, options))) throw new AttemptAlreadyPlaced();
      await uow.publish([OrderPlaced.create(order.id, { order })]);
      return order;
    });
  } catch (error) {
    if (!(error instanceof AttemptAlreadyPlaced)) throw error;
    const placed = await deps.orders.findByPaymentAttempt(command.paymentAttemptId);
    if (!placed) throw new Error(`order: attempt ${command.paymentAttemptId} conflicted but has no order`);
    return placed;
  }
}
