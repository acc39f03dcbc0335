import type { SoapInvoice, SoapOrder } from '@commerce/erp-contracts';
import {
  OrderCancelled,
  OrderInvoiced,
  OrderShipped,
  OrderStatusChanged,
  ORDER_STATUS_DESCRIPTIONS,
  type CancelledLine,
  type OrderDto,
  type OrderInvoice,
  type OrderShipment,
} from '@commerce/order-contracts';
import type { OrderRepository, OrderUnitOfWork } from './order.repository';

export interface ApplyOrderUpsertDeps {
  orders: OrderRepository;
  /** A carrier's tracking page for a tracking id (store configuration `trackingUrls`); '' when none is known. */
  trackingUrl?: (carrier: string, trackingId: string) => string;
}

/** What an upsert did: `found` false when the ERP named an order this service never placed (nothing to apply). */
export interface ApplyOrderUpsertResult {
  found: boolean;
  changed: boolean;
  orderId?: string;
}

/** A date as the checkout API shows it (`YYYY-MM-DD HH:MM:SS`, UTC) when the ERP's value parses; else as given. */
function shownDate(value: string | undefined): string {
  if (!value) return '';
  const parsed = Date.parse(value);
  return Number.isNaN(parsed)
    ? value
    : new Date(parsed)
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d{3}Z$/, '');
}

const qty = (v: string | undefined): number | undefined => {
  if (v === undefined || v.trim() === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 ? Math.round(n) : undefined;
};

/** The order an ERP entity names: by `ordernumber`, else its `id` (our number, or our id). */
async function findNamed(uow: OrderUnitOfWork, ...references: Array<string | undefined>): Promise<OrderDto | null> {
  for (const reference of references) {
    if (!reference?.trim()) continue;
    const found = await uow.findForUpdate(null, reference.trim());
    if (found) return found;
  }
  return null;
}

function shipmentsOf(deps: ApplyOrderUpsertDeps, order: OrderDto, soap: SoapOrder): OrderShipment[] {
  const known = new Map(order.shipments.map((s) => [s.shipment, s]));
  for (const s of soap.shipments ?? []) {
    const previous = known.get(s.id);
    const carrierInfo = s.carrierinformation ?? soap.carrierinformation;
    const carrier = carrierInfo?.carrier ?? previous?.carrier ?? '';
    const tracking = carrierInfo?.tracking ?? previous?.trackingId ?? '';
    // A tracking value that is itself a URL is the tracking page.
    const isUrl = /^https?:\/\//i.test(tracking);
    known.set(s.id, {
      shipment: s.id,
      shippedDate: s.shipped !== undefined || s.created !== undefined ? shownDate(s.shipped || s.created) : (previous?.shippedDate ?? ''),
      carrier,
      service: carrierInfo?.service ?? previous?.service ?? '',
      trackingId: isUrl ? (previous?.trackingId ?? '') : tracking,
      trackingUrl: isUrl ? tracking : tracking ? (deps.trackingUrl?.(carrier, tracking) ?? '') : (previous?.trackingUrl ?? ''),
    });
  }
  return [...known.values()];
}

/**
 * Cancelled quantities per line: the ERP names a line by the id our order event gave it (the line id), else
 * by SKU (a size's, else the line's); a line it cannot match is left out. A cancelled quantity is set, not
 * added, so a repeated upsert changes nothing.
 */
function cancelledOf(order: OrderDto, soap: SoapOrder): CancelledLine[] {
  const byItem = new Map(order.cancelled.map((c) => [c.item, c]));
  for (const product of soap.cancelled ?? []) {
    const sizes = product.sizes?.length ? product.sizes : [{ id: '', sku: product.sku, qty: product.qty }];
    for (const size of sizes) {
      const sku = size.sku || product.sku;
      const line = order.lines.find((l) => l.line === product.id) ?? (sku ? order.lines.find((l) => l.sku === sku) : undefined);
      const quantity = qty(size.qty) ?? qty(product.qty);
      if (!line || quantity === undefined) continue;
      byItem.set(line.item, { item: line.item, sku: line.sku, quantity: Math.min(quantity, line.quantity) });
    }
  }
  return [...byItem.values()].sort((a, b) => a.item.localeCompare(b.item));
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * `orders_Update` from the back office: the named order's status, shipments (carrier, tracking id and URL)
 * and cancelled lines, merged (what the ERP leaves out stays), with `OrderStatusChanged`, `OrderShipped` and
 * `OrderCancelled` for what changed, in one transaction. The snapshot of what was bought never changes.
 */
export async function applyOrderUpsert(deps: ApplyOrderUpsertDeps, soap: SoapOrder): Promise<ApplyOrderUpsertResult> {
  return deps.orders.transaction(async (uow) => {
    const order = await findNamed(uow, soap.ordernumber, soap.id);
    if (!order) return { found: false, changed: false };
    const status = soap.status?.trim() ? soap.status.trim().toLowerCase() : order.status;
    const shipments = shipmentsOf(deps, order, soap);
    const cancelled = cancelledOf(order, soap);
    const newShipments = shipments.filter((s) => !order.shipments.some((o) => same(o, s)));
    const newCancelled = cancelled.filter((c) => !order.cancelled.some((o) => same(o, c)));
    if (status === order.status && newShipments.length === 0 && newCancelled.length === 0) {
      return { found: true, changed: false, orderId: order.id };
    }
    const after: OrderDto = {
      ...order,
      status,
      statusDescription: ORDER_STATUS_DESCRIPTIONS[status] ?? status,
      shipments,
      cancelled,
      version: order.version + 1,
    };
    await uow.update(after);
    await uow.publish([
      ...(status !== order.status ? [OrderStatusChanged.create(after.id, { order: after, previousStatus: order.status, status })] : []),
      ...(newShipments.length ? [OrderShipped.create(after.id, { order: after, shipments: newShipments })] : []),
      ...(newCancelled.length ? [OrderCancelled.create(after.id, { order: after, cancelled: newCancelled })] : []),
    ]);
    return { found: true, changed: true, orderId: order.id };
  });
}

/** `invoices_Update`: the invoice kept on the order its `order` names, with `OrderInvoiced` when it changed. */
export async function applyInvoiceUpsert(deps: { orders: OrderRepository }, soap: SoapInvoice): Promise<ApplyOrderUpsertResult> {
  return deps.orders.transaction(async (uow) => {
    const order = await findNamed(uow, soap.order?.id);
    if (!order) return { found: false, changed: false };
    const previous = order.invoices.find((i) => i.invoice === soap.id);
    const invoice: OrderInvoice = {
      invoice: soap.id,
      serialNo: soap.serialno ?? previous?.serialNo ?? '',
      status: soap.status ?? previous?.status ?? '',
      currency: soap.currency ?? previous?.currency ?? order.currency,
      total: soap.total ?? previous?.total ?? '',
      vat: soap.vat ?? previous?.vat ?? '',
      totalPaid: soap.totalpaid ?? previous?.totalPaid ?? '',
      invoiceDate: soap.invoicedate ?? previous?.invoiceDate ?? '',
      dueDate: soap.duedate ?? previous?.dueDate ?? '',
    };
    if (previous && same(previous, invoice)) return { found: true, changed: false, orderId: order.id };
    const after: OrderDto = {
      ...order,
      invoices: [...order.invoices.filter((i) => i.invoice !== soap.id), invoice].sort((a, b) => a.invoice.localeCompare(b.invoice)),
      version: order.version + 1,
    };
    await uow.update(after);
    await uow.publish([OrderInvoiced.create(after.id, { order: after, invoice: soap.id })]);
    return { found: true, changed: true, orderId: order.id };
  });
}
