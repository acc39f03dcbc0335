import type { ReceivableEntity } from '@commerce/erp-contracts';
import { MalformedRequestError, OperationNotImplementedError, UnknownOperationError } from '@commerce/backoffice-core';
import type { ChangeEvent } from '@commerce/backoffice-core';
import { entityToXml, xmlListToEntities, type XmlNode } from './soap-xml.mapper';
import type { EntityListOf } from './xml-tree';
import type { StreamedUpdate } from './soap-streamed-update';

/** The operations of the spec's table: name, the element that carries the request, the element that answers. */
export const SPEC_OPERATIONS = [
  { name: 'accounts_Update', request: 'accounts_Update', response: 'accountsUpdateResponse' },
  { name: 'customers_Update', request: 'customers_Update', response: 'customersUpdateResponse' },
  { name: 'deliverywindows_Update', request: 'deliverywindows_Update', response: 'deliverywindowsUpdateResponse' },
  { name: 'events_Done', request: 'events_Done', response: 'eventsDoneResponse' },
  { name: 'events_Get', request: 'events_GetRequest', response: 'events_Get' },
  { name: 'events_GetByMarkets', request: 'events_GetByMarkets', response: 'events_Get' },
  { name: 'invoices_Update', request: 'invoices_Update', response: 'invoicesUpdateResponse' },
  { name: 'markets_Update', request: 'markets_Update', response: 'marketsUpdateResponse' },
  { name: 'orders_Update', request: 'orders_Update', response: 'ordersUpdateResponse' },
  { name: 'paymentterms_Update', request: 'paymentterms_Update', response: 'paymenttermsUpdateResponse' },
  { name: 'pricelists_Update', request: 'pricelists_Update', response: 'pricelistsUpdateResponse' },
  { name: 'products_Update', request: 'products_Update', response: 'productsUpdateResponse' },
  { name: 'salesreps_Update', request: 'salesreps_Update', response: 'salesrepsUpdateResponse' },
  { name: 'shippingterms_Update', request: 'shippingterms_Update', response: 'shippingtermsUpdateResponse' },
  { name: 'sizes_Update', request: 'sizes_Update', response: 'sizesUpdateResponse' },
  { name: 'warehouses_Update', request: 'warehouses_Update', response: 'warehousesUpdateResponse' },
] as const;

export type SoapOperationName = (typeof SPEC_OPERATIONS)[number]['name'];
export type SpecOperation = (typeof SPEC_OPERATIONS)[number];

/** A `*_Update` this build serves: the spec's list element and its repeated item, the XSD type of an item, the entity. */
export interface UpdateOperation {
  name: SoapOperationName;
  entity: ReceivableEntity;
  list: string;
  item: string;
  /** The item's type in `soapTypes`. */
  type: string;
}

/** Serving another entity: its zod schema and event in the contracts, its XML type in soap-types.ts, one line here. */
export const UPDATE_OPERATIONS: readonly UpdateOperation[] = [
  { name: 'products_Update', entity: 'product', list: 'products', item: 'product', type: 'Product' },
  { name: 'sizes_Update', entity: 'size', list: 'sizes', item: 'size', type: 'Size' },
  { name: 'pricelists_Update', entity: 'pricelist', list: 'pricelists', item: 'pricelist', type: 'Pricelist' },
  { name: 'markets_Update', entity: 'market', list: 'markets', item: 'market', type: 'Market' },
  { name: 'warehouses_Update', entity: 'warehouse', list: 'warehouses', item: 'warehouse', type: 'Warehouse' },
  { name: 'deliverywindows_Update', entity: 'deliverywindow', list: 'deliverywindows', item: 'deliverywindow', type: 'DeliveryWindow' },
  { name: 'accounts_Update', entity: 'account', list: 'accounts', item: 'account', type: 'Account' },
  { name: 'customers_Update', entity: 'customer', list: 'customers', item: 'customer', type: 'Customer' },
  { name: 'salesreps_Update', entity: 'salesrep', list: 'salesreps', item: 'salesrep', type: 'SalesRep' },
  { name: 'paymentterms_Update', entity: 'paymentterms', list: 'paymentterms', item: 'paymentterms', type: 'PaymentTerms' },
  { name: 'shippingterms_Update', entity: 'shippingterms', list: 'shippingterms', item: 'shippingterms', type: 'ShippingTerms' },
  { name: 'orders_Update', entity: 'order', list: 'orders', item: 'order', type: 'Order' },
  { name: 'invoices_Update', entity: 'invoice', list: 'invoices', item: 'invoice', type: 'Invoice' },
];

export interface SoapCallContext {
  requestId: string;
  username: string;
  /** The request's batch, when the parse handed it to the store as it built it (decision 91). */
  streamed?: StreamedUpdate;
}

/**
 * Runs one operation on its (already authenticated) operation element; resolves to the reply element's
 * text, or to its child elements (`{xml}`, serialised) for a structured reply such as `events_Get`.
 */
export type SoapHandler = (operation: Record<string, XmlNode>, context: SoapCallContext) => Promise<string | { xml: string }>;

const lcfirst = (s: string): string => s.charAt(0).toLowerCase() + s.slice(1);
const ucfirst = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** The spec operation a Body element stands for (`products_Update` or `Products_Update`), or UnknownOperationError. */
export function operationOfElement(element: string): SpecOperation {
  const found = SPEC_OPERATIONS.find((op) => lcfirst(op.request) === lcfirst(element));
  if (!found) throw new UnknownOperationError(`unknown operation: ${element}`);
  return found;
}

const updateLists = new Map<string, UpdateOperation | undefined>();
/**
 * The list element, item and type of the `*_Update` a Body element stands for (what its updateHandler
 * reads), for the parser to build its items straight into entities; undefined for any other element.
 */
export const updateListOf: EntityListOf = (element) => {
  if (updateLists.has(element)) return updateLists.get(element);
  const spec = SPEC_OPERATIONS.find((op) => lcfirst(op.request) === lcfirst(element));
  const update = spec && UPDATE_OPERATIONS.find((op) => op.name === spec.name);
  if (updateLists.size < 100) updateLists.set(element, update);
  return update;
};

/**
 * SOAPAction is `{namespace}<Operation>`; clients vary in quoting, separators (`#`, `/`) and the case of
 * the first letter, and some get the namespace slightly wrong. Lenient about all that, strict about which
 * operation it names: it must be the Body's. An empty or absent SOAPAction (SOAP 1.1: "the intent is the
 * URI") leaves the Body to decide.
 */
export function checkSoapAction(header: string | undefined, operation: SpecOperation): void {
  const action = (header ?? '')
    .trim()
    .replace(/^"(.*)"$/, '$1')
    .trim();
  if (action === '') return;
  const named = SPEC_OPERATIONS.filter((op) => action.endsWith(op.name) || action.endsWith(ucfirst(op.name))).sort(
    (a, b) => b.name.length - a.name.length,
  )[0];
  if (named?.name !== operation.name)
    throw new UnknownOperationError(`SOAPAction ${action} does not name the operation in the Body (${operation.name})`);
}

/** Dispatches to the handler of an implemented operation; the spec's others are a Client fault for now. */
export function handlerFor(operation: SpecOperation, handlers: Partial<Record<SoapOperationName, SoapHandler>>): SoapHandler {
  const handler = handlers[operation.name];
  if (!handler) throw new OperationNotImplementedError(operation.name);
  return handler;
}

/**
 * The shape every `*_Update` shares: a list element (`products`) of repeated entities (`product`), mapped
 * to JSON by their SOAP type and handed to the use case, which answers only once they are durable.
 */
export function updateHandler(options: {
  list: string;
  item: string;
  type: string;
  receive: (entities: unknown[], context: SoapCallContext) => Promise<unknown>;
}): SoapHandler {
  return async (operation, context) => {
    if (!(options.list in operation)) throw new MalformedRequestError(`the operation needs a ${options.list} element`);
    const node = operation[options.list];
    if (Array.isArray(node)) throw new MalformedRequestError(`only one ${options.list} element is allowed`);
    if (typeof node === 'object' && node !== null) {
      const strays = Object.keys(node).filter((k) => k !== options.item);
      if (strays.length > 0)
        throw new MalformedRequestError(`${options.list} may hold only ${options.item} elements, not ${strays.join(', ')}`);
    } else if (node !== undefined && node.trim() !== '') {
      throw new MalformedRequestError(`${options.list} must hold ${options.item} elements`);
    }
    await options.receive(xmlListToEntities(options.type, options.item, node), context);
    return 'OK';
  };
}

const isElementObject = (node: unknown): node is Record<string, XmlNode> =>
  typeof node === 'object' && node !== null && !Array.isArray(node);

function textParameter(operation: Record<string, XmlNode>, name: string): string {
  const node = operation[name];
  if (node === undefined) throw new MalformedRequestError(`the operation needs a ${name} element`);
  if (typeof node !== 'string') throw new MalformedRequestError(`${name} must be one element holding text`);
  return node;
}

/** `<events><event>…</event>…</events>`: each event in the `Event` type's order. */
export const eventsXml = (events: readonly ChangeEvent[]): string =>
  `<events>${events.map((e) => `<event>${entityToXml('Event', e)}</event>`).join('')}</events>`;

export type GetEvents = (request: { username: string; type: string; markets?: string[] }) => Promise<ChangeEvent[]>;

/** `events_Get`: `type`; answers `<events_Get><events>…</events></events_Get>`. */
export function eventsGetHandler(getEvents: GetEvents): SoapHandler {
  return async (operation, context) => ({
    xml: eventsXml(await getEvents({ username: context.username, type: textParameter(operation, 'type') })),
  });
}

/** `events_GetByMarkets`: `type` and `markets` (a list of `market` REF). */
export function eventsGetByMarketsHandler(getEvents: GetEvents): SoapHandler {
  return async (operation, context) => {
    const type = textParameter(operation, 'type');
    const node = operation['markets'];
    if (node === undefined) throw new MalformedRequestError('the operation needs a markets element');
    if (Array.isArray(node)) throw new MalformedRequestError('only one markets element is allowed');
    if (isElementObject(node)) {
      const strays = Object.keys(node).filter((k) => k !== 'market');
      if (strays.length > 0) throw new MalformedRequestError(`markets may hold only market elements, not ${strays.join(', ')}`);
    }
    const markets = xmlListToEntities('Ref', 'market', node).map((m) => {
      const id = (m as { id?: unknown }).id;
      if (typeof id !== 'string') throw new MalformedRequestError('every market needs an id');
      return id;
    });
    return { xml: eventsXml(await getEvents({ username: context.username, type, markets })) };
  };
}

/** `events_Done`: one or more `event` numbers; answers `<eventsDoneResponse>OK</…>`. */
export function eventsDoneHandler(markDone: (username: string, numbers: string[]) => Promise<void>): SoapHandler {
  return async (operation, context) => {
    const node = operation['event'];
    const numbers = node === undefined ? [] : Array.isArray(node) ? node : [node];
    if (numbers.some((n) => typeof n !== 'string')) throw new MalformedRequestError('event must hold an event number');
    await markDone(context.username, numbers as string[]);
    return 'OK';
  };
}
