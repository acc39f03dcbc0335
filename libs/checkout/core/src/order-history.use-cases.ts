import { MAX_HISTORY_PAGE, OrdersBody } from '@commerce/checkout-contracts';
import { DomainError, ValidationError, fieldsFromIssues } from '@commerce/shared-errors';
import type { ProductDto } from '@commerce/catalog-contracts';
import type { OrderDto } from '@commerce/order-contracts';
import { AccessDeniedError } from './checkout.errors';
import type { CheckoutDeps, SessionHandle } from './checkout.use-cases';
import { orderToHistoryEntry } from './order-history';

/** Every order of a customer from `from` on, a bounded page at a time (the spec's unpaged `POST orders`). */
async function allOrdersFrom(deps: CheckoutDeps, customerId: string, from: number) {
  const orders: OrderDto[] = [];
  for (;;) {
    const page = await deps.orders.listCustomerOrders(customerId, from + orders.length, MAX_HISTORY_PAGE);
    orders.push(...page.orders);
    if (page.orders.length < MAX_HISTORY_PAGE || from + orders.length >= page.totalSize) return { orders, totalSize: page.totalSize };
  }
}

/** The products of the orders' items in the session's context; those the catalog no longer shows (or cannot answer for now) are left out. */
async function productsOfOrders(deps: CheckoutDeps, handle: SessionHandle, orders: OrderDto[]): Promise<ProductDto[]> {
  const context = deps.view.priceContext(handle.session);
  const ids = [...new Set(orders.flatMap((o) => o.lines.map((l) => l.product)))];
  const unavailableIsNull = (e: unknown) => (e instanceof DomainError && e.kind === 'unavailable' ? null : Promise.reject(e));
  const products = await Promise.all(ids.map((id) => deps.catalog.getProduct(id, context).catch(unavailableIsNull)));
  return products.filter((p): p is ProductDto => p !== null);
}

/**
 * `POST orders` `{from?, size?}`: the logged-in customer's orders, newest first (403 `{accessRight:
 * denied}` when nobody is logged in). Without `size` every order from `from` on; `ordersPaging.size` is
 * then the number answered.
 */
export async function listOrders(deps: CheckoutDeps, handle: SessionHandle, body: unknown) {
  const customerId = handle.session.customerId;
  if (!customerId) throw new AccessDeniedError();
  const parsed = OrdersBody.safeParse(body ?? {});
  if (!parsed.success) throw new ValidationError(fieldsFromIssues(parsed.error.issues));
  const from = parsed.data.from ?? 0;
  const size = parsed.data.size;
  const [page, customer] = await Promise.all([
    size === undefined ? allOrdersFrom(deps, customerId, from) : deps.orders.listCustomerOrders(customerId, from, size),
    deps.account.getCustomer(customerId),
  ]);
  const products = await productsOfOrders(deps, handle, page.orders);
  return {
    token: handle.token,
    orders: page.orders.map(orderToHistoryEntry),
    ordersPaging: { from, size: size ?? page.orders.length, totalSize: page.totalSize },
    products,
    location: deps.view.location(handle.session),
    language: deps.view.language(handle.session),
    ...(customer ? { loggedIn: customer.address } : {}),
  };
}
