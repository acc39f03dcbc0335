import {
  BackofficeTopics,
  CHANGE_EVENT_DATA_ELEMENT,
  UpsertReceivedEvents,
  type ChangeEventType,
  type ReceivableEntity,
} from '@commerce/erp-contracts';
import { CatalogTopics, ProductUpserted, StockChanged, StockCommitted } from '@commerce/catalog-contracts';
import type { EventEnvelope } from '@commerce/shared-events';
import type { NewChangeEvent } from './change-feed.port';
import { offsetDate } from './offset-date';
import { orderChangeEventMapper } from './order-change-event.mapper';
import { customerChangeEventMapper } from './customer-change-event.mapper';

export interface MapperContext {
  /** SOAP_ECHO_EVENTS: changes made through SOAP come back as events too. */
  echo: boolean;
  /** True when the owner's event was caused by a SOAP request this service accepted (its request id). */
  causedBySoap(envelope: EventEnvelope): Promise<boolean>;
}

/**
 * Turns one owner's event into change events of the SOAP feed. One mapper per owner event: a service that
 * starts publishing (`order.order.v1` has `orderChangeEventMapper`, `account.customer.v1`
 * `customerChangeEventMapper`) gets a mapper here that parses with the owner's contract and builds
 * the entity in its SOAP shape; the consumer subscribes to every topic a mapper names.
 */
export interface ChangeEventMapper {
  topic: string;
  /** Whether this mapper reads the event (topic, type and version). */
  matches(envelope: EventEnvelope): boolean;
  /** Only when true is the mapper's topic subscribed (e.g. SOAP echoes only when configured). */
  enabled?(context: Pick<MapperContext, 'echo'>): boolean;
  map(envelope: EventEnvelope, context: MapperContext): Promise<NewChangeEvent[]>;
}

export { offsetDate } from './offset-date';

const event = (type: ChangeEventType, entry: string, envelope: EventEnvelope, entity: unknown, market?: string): NewChangeEvent => ({
  type,
  entry,
  mission: 'update',
  date: offsetDate(envelope.occurredAt),
  ...(market ? { market } : {}),
  data: { [CHANGE_EVENT_DATA_ELEMENT[type]]: entity },
});

/** The feed's kind for each upsert entity; products and delivery windows have none in the spec's list. */
const UPSERT_EVENT_TYPE: Partial<Record<ReceivableEntity, ChangeEventType>> = {
  account: 'account',
  customer: 'customer',
  invoice: 'invoice',
  market: 'market',
  order: 'order',
  paymentterms: 'paymentterm',
  pricelist: 'pricelist',
  salesrep: 'salesrep',
  shippingterms: 'shippingterm',
  size: 'size',
  warehouse: 'warehouse',
};

const refId = (ref: unknown): string | undefined => {
  const id = (ref as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' && id.trim() !== '' ? id : undefined;
};

/** A buyer's password hash never leaves the service, not even to the ERP that sent the password. */
function withoutSecrets(entity: ReceivableEntity, data: Record<string, unknown>): Record<string, unknown> {
  if (entity !== 'account' || !Array.isArray(data['buyers'])) return data;
  return { ...data, buyers: (data['buyers'] as Record<string, unknown>[]).map(({ passwordhash: _hash, ...buyer }) => buyer) };
}

/** `backoffice.upsert.v1`: what the ERP itself sent; an event only with SOAP_ECHO_EVENTS. */
export const soapUpsertEchoMapper: ChangeEventMapper = {
  topic: BackofficeTopics.UPSERT,
  matches: (envelope) => Object.values(UpsertReceivedEvents).some((e) => e.matches(envelope)),
  enabled: ({ echo }) => echo,
  async map(envelope, context) {
    if (!context.echo) return [];
    const entity = (envelope.payload as { entity?: unknown } | null)?.entity as ReceivableEntity;
    const type = UPSERT_EVENT_TYPE[entity];
    const definition = UpsertReceivedEvents[entity];
    if (!type || !definition) return [];
    const payload = definition.parse(envelope).payload as Record<string, unknown>;
    const data = withoutSecrets(entity, payload[entity] as Record<string, unknown>);
    const market = type === 'market' ? refId(data) : refId(data['market']);
    return [event(type, String(data['id']), envelope, data, market)];
  },
};

/** The product-level `stock` event: names the product (its ERP id) for the ERP to re-read. */
const productStockEvent = (externalId: string, envelope: EventEnvelope): NewChangeEvent =>
  event('stock', externalId, envelope, { product: { id: externalId } });

/**
 * `catalog.product.v1` ProductUpserted: the catalog re-publishes a product whenever what it shows may
 * have changed (stock, availability, prices, names). The event carries only the product's ids, so the
 * feed's `stock` event names the product (`entry` and `stock.product.id` are the ERP's product id) for
 * the ERP to re-read; quantities come when the catalog publishes them on `catalog.stock.v1` (a mapper
 * of its own). A re-publish caused by a SOAP request of ours is an echo, skipped unless configured.
 */
export const productUpsertedStockMapper: ChangeEventMapper = {
  topic: CatalogTopics.PRODUCT,
  matches: (envelope) => ProductUpserted.matches(envelope),
  async map(envelope, context) {
    const { externalId } = ProductUpserted.parse(envelope).payload;
    if (!context.echo && (await context.causedBySoap(envelope))) return [];
    return [productStockEvent(externalId, envelope)];
  },
};

/** A product's stock change as `StockChanged` and each entry of `StockCommitted` tell it. */
type ProductStockChange = ReturnType<typeof StockChanged.parse>['payload'];

/**
 * One `stock` event per item whose stock changed, with its quantities in the WSDL's Stock shape (product,
 * variation and size by the ERP's ids, sku, ean, `qty`, and the per-warehouse `warehouseitems` when the ERP's
 * upsert set them). A change the catalog did not re-publish the product for (`republished: false`: an order's
 * commit that sold nothing out) first gives the product-level `stock` event its `ProductUpserted` would have given.
 */
const stockEventsOf = ({ externalId, items, republished }: ProductStockChange, envelope: EventEnvelope): NewChangeEvent[] =>
  (republished === false ? [productStockEvent(externalId, envelope)] : []).concat(
    items.map((item) =>
      event('stock', externalId, envelope, {
        product: { id: externalId },
        variation: { id: item.variation },
        size: { id: item.size },
        sku: item.sku,
        ean: item.ean,
        qty: String(item.qty),
        ...(item.warehouses ? { warehouseitems: item.warehouses.map((w) => ({ id: w.id, qty: String(w.qty) })) } : {}),
      }),
    ),
  );

/** `catalog.stock.v1` StockChanged (a product's, from the ERP's upsert): its `stock` events. Echo rule as for ProductUpserted. */
export const stockChangedMapper: ChangeEventMapper = {
  topic: CatalogTopics.STOCK,
  matches: (envelope) => StockChanged.matches(envelope),
  async map(envelope, context) {
    const change = StockChanged.parse(envelope).payload;
    if (!context.echo && (await context.causedBySoap(envelope))) return [];
    return stockEventsOf(change, envelope);
  },
};

/**
 * `catalog.stock.v1` StockCommitted (an order's commit, issue 28): each product's `stock` events in the order the
 * message lists them, the same events as a `StockChanged` of each product gave before (decision 174).
 */
export const stockCommittedMapper: ChangeEventMapper = {
  topic: CatalogTopics.STOCK,
  matches: (envelope) => StockCommitted.matches(envelope),
  async map(envelope, context) {
    const { products } = StockCommitted.parse(envelope).payload;
    if (!context.echo && (await context.causedBySoap(envelope))) return [];
    return products.flatMap((change) => stockEventsOf(change, envelope));
  },
};

/** Every owner event the feed is built from. */
export const CHANGE_EVENT_MAPPERS: readonly ChangeEventMapper[] = [
  soapUpsertEchoMapper,
  productUpsertedStockMapper,
  stockChangedMapper,
  stockCommittedMapper,
  orderChangeEventMapper,
  customerChangeEventMapper,
];

/** The topics the feed's consumer subscribes to. */
export const changeEventTopics = (mappers: readonly ChangeEventMapper[], echo: boolean): string[] => [
  ...new Set(mappers.filter((m) => m.enabled?.({ echo }) ?? true).map((m) => m.topic)),
];

/** The change events of one owner event: the first mapper that reads it decides; none reads it → none. */
export async function changeEventsOf(
  mappers: readonly ChangeEventMapper[],
  envelope: EventEnvelope,
  context: MapperContext,
): Promise<NewChangeEvent[]> {
  const mapper = mappers.find((m) => m.topic === envelope.topic && m.matches(envelope));
  return mapper ? mapper.map(envelope, context) : [];
}
