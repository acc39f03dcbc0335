import { SoapOrderSchema, type SoapOrder } from '@commerce/erp-contracts';
import { ORDER_EVENTS, OrderTopics, type OrderAddress, type OrderDto, type OrderLine } from '@commerce/order-contracts';
import type { EventEnvelope } from '@commerce/shared-events';
import { itemIdParts } from '@commerce/catalog-contracts';
import type { ChangeEventMapper } from './change-event.mappers';
import { offsetDate } from './offset-date';
import { soapAddressFields } from './soap-address';

/** An amount in minor units as the SOAP API writes amounts: a decimal string in major units (`274.00`). */
const amount = (minor: number | null, digits: number): string => ((minor ?? 0) / 10 ** digits).toFixed(digits);

const soapAddress = (a: OrderAddress) => ({ company: a.company, ...soapAddressFields(a) });

/** The size's id in an item id (a line's `size` is the size's name, decision 112). */
const sizeIdOf = (item: string) => itemIdParts(item).size;

/**
 * A line as a PRODUCTLINE: its `id` is the line id, which the ERP names when it cancels the line; the variation,
 * size and brand by the ERP's ids (what it sent in products_Update, decision 113), or by the service's own ids and the
 * brand's name on an order placed without them.
 */
function productLine(order: OrderDto, line: OrderLine, quantity = line.quantity) {
  const digits = order.currencyFormat.decimalDigits;
  const external = line.external;
  const brand = external?.brand || line.brandName;
  return {
    id: line.line,
    tax: String(line.taxPercent),
    sku: line.sku,
    origprice: amount(line.priceEachBeforeDiscount, digits),
    price: amount(line.priceEach, digits),
    discount: amount(line.priceEachBeforeDiscount - line.priceEach, digits),
    qty: String(quantity),
    subtotal: amount(line.priceEach * quantity, digits),
    description: line.productName,
    variation: { id: external?.variation || line.product, description: line.productName },
    ...(brand ? { brand: { id: brand, description: line.brandName || brand } } : {}),
    sizes: [{ id: external?.size || sizeIdOf(line.item), sku: line.sku, qty: String(quantity), description: line.item }],
  };
}

/**
 * An order in the SOAP `order` shape the spec's events_Get `data` holds: `id` and `ordernumber` are the
 * order number (what `orders_Update` names it by), the lines as PRODUCTLINEs, charges, payment, shipments.
 */
export function soapOrderOf(order: OrderDto): SoapOrder {
  const digits = order.currencyFormat.decimalDigits;
  const t = order.totals;
  const byItem = new Map(order.lines.map((l) => [l.item, l]));
  return SoapOrderSchema.parse({
    id: order.order,
    ordernumber: order.order,
    ...(/^\d{1,9}$/.test(order.store) ? { store: order.store } : {}),
    status: order.status,
    ordertotal: amount(t.grandTotal, digits),
    currency: order.currency,
    created: offsetDate(order.placedAt),
    ...(order.customerId
      ? {
          buyer: {
            id: order.customerId,
            firstname: order.address.firstName,
            lastname: order.address.lastName,
            email: order.address.email,
          },
          customer: { id: order.customerId, description: `${order.address.firstName} ${order.address.lastName}`.trim() },
        }
      : {}),
    additionals: [
      { key: 'language', value: order.language },
      { key: 'country', value: order.country },
      ...(order.state ? [{ key: 'state', value: order.state }] : []),
      { key: 'paymentAttemptId', value: order.paymentAttemptId },
      { key: 'vatExempt', value: String(order.vatExempt) },
      ...(order.giftMessage ? [{ key: 'giftMessage', value: order.giftMessage }] : []),
    ],
    shipping: { subtotal: amount(t.shipping, digits), description: order.shippingMethod.name, key: order.shippingMethod.id },
    handling: { subtotal: amount(t.handlingCost, digits), description: order.paymentMethod.name, key: order.paymentMethod.id },
    voucher: {
      subtotal: amount(order.discounts.discount, digits),
      description: order.discounts.vouchers.map((v) => v.voucher).join(', '),
    },
    payments: {
      name: order.paymentMethod.name,
      method: order.paymentMethod.id,
      total: amount(t.grandTotal, digits),
      status: 'paid',
      payment: {
        paid: amount(t.grandTotal, digits),
        value: amount(t.grandTotal, digits),
        created: offsetDate(order.placedAt),
        ...(order.paymentReference ? { transaction: order.paymentReference } : {}),
      },
    },
    products: order.lines.map((l) => productLine(order, l)),
    cancelled: order.cancelled.flatMap((c) => {
      const line = byItem.get(c.item);
      return line ? [productLine(order, line, c.quantity)] : [];
    }),
    shipments: order.shipments.map((s) => ({
      id: s.shipment,
      shipped: s.shippedDate,
      currency: order.currency,
      carrierinformation: { carrier: s.carrier, service: s.service, tracking: s.trackingId },
    })),
    shippingaddress: soapAddress(order.shippingAddress),
    billingaddress: soapAddress(order.address),
    other: order.message,
    market: { id: order.market },
    pricelist: { id: order.pricelist },
  });
}

/**
 * `order.order.v1` (placed, status changed, shipped, cancelled, invoiced): an `order` event of the order
 * as it is after the change, in the order's market. A change caused by a SOAP request of ours (an ERP's
 * `orders_Update` or `invoices_Update`) is an echo, skipped unless configured.
 */
export const orderChangeEventMapper: ChangeEventMapper = {
  topic: OrderTopics.ORDER,
  matches: (envelope: EventEnvelope) => ORDER_EVENTS.some((e) => e.matches(envelope)),
  async map(envelope, context) {
    const definition = ORDER_EVENTS.find((e) => e.matches(envelope))!;
    const { order } = definition.parse(envelope).payload as { order: OrderDto };
    if (envelope.type !== 'OrderPlaced' && !context.echo && (await context.causedBySoap(envelope))) return [];
    return [
      {
        type: 'order',
        entry: order.order,
        mission: 'update',
        date: offsetDate(envelope.occurredAt),
        market: order.market,
        data: { order: soapOrderOf(order) },
      },
    ];
  },
};
