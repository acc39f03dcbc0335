import { createInternalCaller } from '@commerce/shared-internal-client';
import type {
  CheckoutBegun,
  OrderClient,
  OrderDto,
  OrderPage,
  PaidAttemptCompletion,
  PaymentResultCompletion,
  PlaceOrderCommand,
} from './order.dto';

/** The order service's internal HTTP API, for a deployment where the edge and the order service are separate processes. */
export function createOrderHttpClient(baseUrl: string): OrderClient {
  const call = createInternalCaller(baseUrl, 'order');
  return {
    placeOrder: async (command: PlaceOrderCommand) => (await call<OrderDto>('POST', '/internal/order/orders', command))!,
    beginCheckout: async (command) => (await call<CheckoutBegun>('POST', '/internal/order/checkouts', command))!,
    completePaidAttempt: async (attempt) =>
      (await call<PaidAttemptCompletion>('POST', `/internal/order/payment-attempts/${encodeURIComponent(attempt)}/completion`))!,
    completePaymentResult: async (fields, expectedAttemptId) =>
      (await call<PaymentResultCompletion>('POST', '/internal/order/payment-results', { fields, expectedAttemptId }))!,
    getOrder: (id) => call<OrderDto>('GET', `/internal/order/orders/${encodeURIComponent(id)}`),
    getOrderByPaymentAttempt: (attempt) => call<OrderDto>('GET', `/internal/order/payment-attempts/${encodeURIComponent(attempt)}/order`),
    listCustomerOrders: async (customerId, from, size) => {
      const query = new URLSearchParams({ from: String(from), ...(size === null ? {} : { size: String(size) }) });
      return (
        (await call<OrderPage>('GET', `/internal/order/customers/${encodeURIComponent(customerId)}/orders?${query}`)) ?? {
          orders: [],
          totalSize: 0,
        }
      );
    },
  };
}
