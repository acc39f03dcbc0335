import { DomainError, ValidationError, parseInput } from '@commerce/shared-errors';
import type { LineItemData, LineOperation, SelectionChange, SelectionDto } from '@commerce/cart-contracts';
import { isItemId, itemExternalIdsOf, itemIdParts, type PriceContext, type ProductDto } from '@commerce/catalog-contracts';
import type { AddressDto } from '@commerce/account-contracts';
import { ItemNotFoundError, NotFoundError, VoucherRefusedError } from './checkout.errors';
import {
  BulkQuantitiesBody,
  CountryBody,
  MAX_QUANTITY,
  PaymentFieldsBody,
  QuantityBody,
  VoucherBody,
  quantityOf,
} from '@commerce/checkout-contracts';
import { emptySelection, selectionEnvelope } from './envelope';
import { minorOf, voucherProblem } from './pricing';
import { admitSession, storeSession, type CheckoutDeps, type SessionHandle } from './checkout.use-cases';
import type { CheckoutSession } from './session';

const now = (deps: CheckoutDeps) => (deps.now ?? (() => new Date()))();

const parse = parseInput;

/** `{n}` of a path: a whole number from `min`; anything else is 400 `{quantity}`. */
export function pathQuantity(raw: string, min: 0 | 1): number {
  const n = /^\d{1,6}$/.test(raw) ? Number(raw) : NaN;
  if (!quantityOf(min).safeParse(n).success)
    throw new ValidationError({ quantity: `must be a whole number from ${min} to ${MAX_QUANTITY}` });
  return n;
}

/** The open selection of the session, or an empty one when it has none (or its selection was closed). */
export async function currentSelection(deps: CheckoutDeps, handle: SessionHandle): Promise<SelectionDto> {
  if (handle.session.selectionId) {
    const selection = await deps.cart.getSelection(handle.session.selectionId);
    if (selection) return selection;
  }
  // Logged in: the customer's saved selection, which another device may have made or replaced meanwhile.
  if (handle.session.customerId) {
    const saved = await deps.cart.savedSelection(handle.session.customerId);
    if (saved) {
      await saveSession(deps, handle, { selectionId: saved.id });
      return saved;
    }
  }
  return emptySelection(deps.view, handle.session);
}

/**
 * The session's new selection, created in the session's market on the first write; an anonymous session's made
 * with its first change (`change`, decision 157: one call to the cart, not two).
 */
async function newSelection(deps: CheckoutDeps, handle: SessionHandle, change?: SelectionChange): Promise<SelectionDto> {
  await admitSession(deps, handle);
  const { customerId } = handle.session;
  const created = await deps.cart.createSelection({
    currency: deps.view.sessionCurrency(handle.session),
    country: handle.session.country,
    language: handle.session.language,
    // Logged in: a saved selection (the cart answers the one another device made meanwhile, if any).
    ...(customerId ? { customerId } : change ? { change } : {}),
  });
  await saveSession(deps, handle, { selectionId: created.id });
  return created;
}

/** Merges a change into the request's session and stores it under its token (a new visitor's first store: `storeSession`). */
export async function saveSession(deps: CheckoutDeps, handle: SessionHandle, patch: Partial<CheckoutSession>) {
  handle.session = { ...handle.session, ...patch };
  await storeSession(deps, handle);
}

/** Products of the selection's items, in the session's context; those the catalog no longer shows are left out. */
async function productsOf(
  deps: CheckoutDeps,
  handle: SessionHandle,
  selection: SelectionDto,
  known = new Map<string, ProductDto | null>(),
) {
  const context = deps.view.priceContext(handle.session);
  const ids = [...new Set(selection.items.map((i) => i.product))];
  // The selection is the cart's: a catalog that does not answer costs the products, not the envelope.
  const unavailableIsNull = (e: unknown) => (e instanceof DomainError && e.kind === 'unavailable' ? null : Promise.reject(e));
  const products = await Promise.all(
    ids.map(async (id) => (known.has(id) ? known.get(id)! : deps.catalog.getProduct(id, context).catch(unavailableIsNull))),
  );
  return products.filter((p): p is ProductDto => p !== null);
}

/** The address of the customer logged in on the session, or undefined (anonymous, or the customer is gone). */
export async function loggedInOf(deps: CheckoutDeps, handle: SessionHandle): Promise<AddressDto | undefined> {
  const id = handle.session.customerId;
  if (!id) return undefined;
  if (handle.customer?.id === id) return handle.customer.address;
  return (await deps.account.getCustomer(id))?.address;
}

/** The envelope without `loggedIn`: what depends only on the selection, the session's country, state and language, and the time. */
export async function envelopeWithoutLogin(
  deps: CheckoutDeps,
  handle: SessionHandle,
  selection: SelectionDto,
  known?: Map<string, ProductDto | null>,
) {
  const products = await productsOf(deps, handle, selection, known);
  return selectionEnvelope(deps.view, handle.token, handle.session, selection, products, now(deps));
}

/** The envelope of the session's selection, with `loggedIn` when a customer is logged in on the token. */
export async function envelope(deps: CheckoutDeps, handle: SessionHandle, selection: SelectionDto, known?: Map<string, ProductDto | null>) {
  const [body, loggedIn] = await Promise.all([envelopeWithoutLogin(deps, handle, selection, known), loggedInOf(deps, handle)]);
  return loggedIn ? { ...body, loggedIn } : body;
}

export async function getSelection(deps: CheckoutDeps, handle: SessionHandle) {
  return envelope(deps, handle, await currentSelection(deps, handle));
}

/** An item for sale in the session's market, with what the cart keeps on its line; else 404 `{item}`. */
async function itemForSale(deps: CheckoutDeps, handle: SessionHandle, itemId: string, known: Map<string, ProductDto | null>) {
  if (!isItemId(itemId)) throw new ItemNotFoundError();
  const productId = itemIdParts(itemId).product;
  // The item as its product shows it in the context (visibility, price, sale price, quantity rules):
  // one read, shared with the envelope's products (decision 31).
  const product = await deps.catalog.getProduct(productId, deps.view.priceContext(handle.session));
  const item = product?.items.find((i) => i.item === itemId);
  if (!product || !item) throw new ItemNotFoundError();
  known.set(product.product, product);
  return lineItemOf(product, item, deps.view.currencyFormat(deps.view.sessionCurrency(handle.session)).decimalDigits);
}

/**
 * What the cart keeps of an item on its line: the catalog's price in the session's pricelist, in minor units of
 * the session's currency (`digits`; the line keeps it until its item is added again or the selection is repriced).
 */
const lineItemOf = (product: ProductDto, item: ProductDto['items'][number], digits: number): LineItemData => ({
  item: item.item,
  product: product.product,
  // What the shopper chose (the size's name, e.g. `M`); the size's id stays in `item` (decision 112).
  size: item.name,
  sku: item.sku,
  ean: item.ean,
  productName: product.name,
  brandName: product.brandName,
  priceEachMinor: minorOf(product.priceAsNumber, digits),
  ...(product.priceBeforeDiscountAsNumber > product.priceAsNumber
    ? { priceEachBeforeDiscountMinor: minorOf(product.priceBeforeDiscountAsNumber, digits) }
    : {}),
  quantityMinimum: product.itemQuantityMinimum || 1,
  quantityMultipleOf: product.itemQuantityMultipleOf || 1,
  // The ERP's ids, when the catalog's answer carried them: the order placed from the line names them (decision 113).
  ...externalOf(product, item.item),
});

const externalOf = (product: ProductDto, item: string): Pick<LineItemData, 'external'> => {
  const external = itemExternalIdsOf(product, item);
  return external ? { external } : {};
};

/** Applies a change to the session's selection; a session without one (or whose selection was closed) gets a new one first. */
async function change(deps: CheckoutDeps, handle: SessionHandle, changeOf: SelectionChange, known?: Map<string, ProductDto | null>) {
  let selection: SelectionDto | null = null;
  if (handle.session.selectionId) {
    selection = await deps.cart
      .changeSelection(handle.session.selectionId, changeOf)
      .catch((e: unknown) => (e instanceof DomainError && e.code === 'CART.SELECTION_NOT_FOUND' ? null : Promise.reject(e)));
  }
  if (!selection) {
    const created = await newSelection(deps, handle, changeOf);
    // A saved selection is made, or found, without the change: it is made as a change of it.
    selection = handle.session.customerId ? await deps.cart.changeSelection(created.id, changeOf) : created;
  }
  return envelope(deps, handle, selection, known);
}

/** `POST items/{item}` (body `{quantity}`, default 1) and `POST items/{item}/quantity/{n}`: add to the item's line. */
export async function addItem(deps: CheckoutDeps, handle: SessionHandle, itemId: string, body: unknown, pathN?: string) {
  const quantity = pathN === undefined ? parse(QuantityBody, body).quantity : pathQuantity(pathN, 1);
  const known = new Map<string, ProductDto | null>();
  const item = await itemForSale(deps, handle, itemId, known);
  return change(deps, handle, { lines: [{ op: 'addItem', item, quantity }] }, known);
}

/** The line operations on an existing line: `POST|DELETE|PUT lines/{line}/quantity/{n}`, `DELETE lines/{line}`. */
export async function changeLine(
  deps: CheckoutDeps,
  handle: SessionHandle,
  line: string,
  how: 'add' | 'remove' | 'set' | 'delete',
  n?: string,
) {
  if (!handle.session.selectionId || !/^[0-9a-f]{1,32}$/.test(line)) throw new NotFoundError('line');
  const op: LineOperation =
    how === 'delete'
      ? { op: 'removeLine', line }
      : how === 'set'
        ? { op: 'setLine', line, quantity: pathQuantity(n ?? '', 0) }
        : { op: 'addLine', line, quantity: (how === 'add' ? 1 : -1) * pathQuantity(n ?? '', 1) };
  return change(deps, handle, { lines: [op] });
}

/** `PUT items`: set the quantities of lines and items in one atomic change (0 removes). */
export async function setQuantities(deps: CheckoutDeps, handle: SessionHandle, body: unknown) {
  const parsed = parse(BulkQuantitiesBody, body);
  const known = new Map<string, ProductDto | null>();
  const items = await Promise.all(
    parsed.items.map(async (i): Promise<LineOperation> => ({
      op: 'setItem',
      item: await itemForSale(deps, handle, i.item, known),
      quantity: i.quantity,
    })),
  );
  if (parsed.lines.length > 0 && !handle.session.selectionId) throw new NotFoundError('line');
  const lines = parsed.lines.map((l): LineOperation => ({ op: 'setLine', line: l.line, quantity: l.quantity }));
  return change(deps, handle, { lines: [...lines, ...items] }, known);
}

/**
 * `PUT countries/{country}` (and `…/states/{state}`): the session moves to the country's market; the
 * selection is repriced in its pricelist and currency, and lines not for sale there are removed and
 * listed in `removedItems`.
 */
export async function setCountry(deps: CheckoutDeps, handle: SessionHandle, countryCode: string, body: unknown, stateCode?: string) {
  const { language } = parse(CountryBody, body);
  const country = deps.view.country(countryCode.toUpperCase());
  if (!country) throw new NotFoundError('country');
  const state = stateCode === undefined ? null : country.states.find((s) => s.state === stateCode.toUpperCase());
  if (state === undefined) throw new NotFoundError('state');
  if (language !== undefined && !deps.view.hasLanguage(language)) throw new NotFoundError('language');

  const moved = await moveToCountry(deps, handle, country.country, state?.state ?? null, language);
  if (!moved) return envelope(deps, handle, emptySelection(deps.view, handle.session));
  return answerWithRemoved(deps, handle, moved.changed, moved.removed);
}

/**
 * The session moved to a country (state, language): stored, and its selection (`known`, as the caller just read
 * it; else read) repriced in the country's pricelist and currency, the lines not for sale there removed. The
 * selection as the change answered it, and the lines removed; null when the session has no open selection.
 */
export async function moveToCountry(
  deps: CheckoutDeps,
  handle: SessionHandle,
  country: string,
  state: string | null,
  language: string | undefined,
  known?: SelectionDto,
): Promise<{ changed: SelectionDto; removed: SelectionDto['items'] } | null> {
  const before = deps.view.priceContext(handle.session);
  await saveSession(deps, handle, { country, state, ...(language ? { language } : {}) });
  const after = deps.view.priceContext(handle.session);
  const { selectionId } = handle.session;
  const selection = !selectionId ? null : known?.id === selectionId ? known : await deps.cart.getSelection(selectionId);
  if (!selection) return null;

  const set = {
    country,
    state,
    language: handle.session.language,
    // A buyer's pricelist stays when the country changes (decision 46): only shipping and tax follow the country.
    currency: deps.view.sessionCurrency(handle.session),
  };
  const { prices, removed } =
    before.market !== after.market || before.pricelist !== after.pricelist
      ? await repriced(deps, selection, after, set.currency)
      : { prices: [], removed: [] };
  const changed = await deps.cart.changeSelection(selection.id, { set, prices, removeLines: removed.map((l) => l.line) });
  return { changed, removed };
}

/** New prices of the selection's lines in a context and its currency, and the lines not for sale there. */
async function repriced(deps: CheckoutDeps, selection: SelectionDto, context: PriceContext, currency: string) {
  const digits = deps.view.currencyFormat(currency).decimalDigits;
  const removed: SelectionDto['items'] = [];
  const prices: NonNullable<SelectionChange['prices']> = [];
  const products = new Map(
    await Promise.all(
      [...new Set(selection.items.map((l) => l.product))].map(async (id) => [id, await deps.catalog.getProduct(id, context)] as const),
    ),
  );
  for (const line of selection.items) {
    const product = products.get(line.product);
    const item = product?.items.find((i) => i.item === line.item);
    if (!product || !item) removed.push(line);
    else {
      const { priceEachMinor, priceEachBeforeDiscountMinor } = lineItemOf(product, item, digits);
      prices.push({ line: line.line, priceEachMinor, ...(priceEachBeforeDiscountMinor ? { priceEachBeforeDiscountMinor } : {}) });
    }
  }
  return { prices, removed };
}

/**
 * The selection in the session's country, language and market: a saved selection from another device
 * (login) is repriced where it was made elsewhere, and lines not for sale here are removed and listed.
 */
export async function selectionInSession(deps: CheckoutDeps, handle: SessionHandle, selection: SelectionDto) {
  const session = handle.session;
  const set = {
    country: session.country,
    state: session.state,
    language: session.language,
    currency: deps.view.sessionCurrency(session),
  };
  // A buyer's lines are always repriced: the saved selection may hold lines priced in the country's pricelist
  // (the anonymous lines merged at login, or lines from before the ERP gave the buyer its own pricelist).
  const sameMarket = !session.buyer && deps.view.marketOf(selection.country).market === deps.view.marketOf(session.country).market;
  if (
    sameMarket &&
    selection.country === set.country &&
    selection.state === set.state &&
    selection.language === set.language &&
    selection.currency === set.currency
  )
    return envelope(deps, handle, selection);
  const { prices, removed } = sameMarket
    ? { prices: [], removed: [] }
    : await repriced(deps, selection, deps.view.priceContext(session), set.currency);
  return changeAndAnswer(deps, handle, selection, { set, prices, removeLines: removed.map((l) => l.line) }, removed);
}

async function changeAndAnswer(
  deps: CheckoutDeps,
  handle: SessionHandle,
  selection: SelectionDto,
  change: SelectionChange,
  removed: SelectionDto['items'],
) {
  return answerWithRemoved(deps, handle, await deps.cart.changeSelection(selection.id, change), removed);
}

/** The envelope of a changed selection, listing the lines the change removed (`removedItems`) when there are any. */
async function answerWithRemoved(deps: CheckoutDeps, handle: SessionHandle, changed: SelectionDto, removed: SelectionDto['items']) {
  const answer = await envelope(deps, handle, changed);
  return removed.length === 0
    ? answer
    : {
        ...answer,
        removedItems: removed.map((l) => ({
          line: l.line,
          item: l.item,
          product: l.product,
          productName: l.productName,
          quantity: l.quantity,
        })),
      };
}

/** `PUT languages/{language}`. */
export async function setLanguage(deps: CheckoutDeps, handle: SessionHandle, language: string) {
  if (!deps.view.hasLanguage(language)) throw new NotFoundError('language');
  await saveSession(deps, handle, { language });
  const selection = await currentSelection(deps, handle);
  if (!selection.id) return envelope(deps, handle, selection);
  return envelope(deps, handle, await deps.cart.changeSelection(selection.id, { set: { language } }));
}

/** `PUT payment-methods/{id}`: a method offered in the session's country, else 404 `{paymentMethod}`. */
export async function setPaymentMethod(deps: CheckoutDeps, handle: SessionHandle, paymentMethod: string) {
  if (!deps.view.availablePaymentMethods(handle.session.country).some((m) => m.paymentMethod === paymentMethod))
    throw new NotFoundError('paymentMethod');
  return change(deps, handle, { set: { paymentMethod } });
}

/** `PUT shipping-methods/{id}`: a method offered to the session's country in its currency, else 404 `{shippingMethod}`. */
export async function setShippingMethod(deps: CheckoutDeps, handle: SessionHandle, shippingMethod: string) {
  const currency = deps.view.sessionCurrency(handle.session);
  if (!deps.view.availableShippingMethods(handle.session.country, currency).some((m) => m.shippingMethod === shippingMethod))
    throw new NotFoundError('shippingMethod');
  return change(deps, handle, { set: { shippingMethod } });
}

/** `PUT payment-fields`: the address fields an embedded payment form reports back; merged into what is stored. */
export async function setPaymentFields(deps: CheckoutDeps, handle: SessionHandle, body: unknown) {
  const fields = parse(PaymentFieldsBody, body);
  const given = Object.fromEntries(Object.entries(fields).filter((e): e is [string, string] => e[1] !== undefined));
  return change(deps, handle, { mergePaymentFields: given });
}

/** `POST vouchers` `{voucher}`: 406 `{voucher: why}` for an unknown, expired or inapplicable code; one of each type. */
export async function addVoucher(deps: CheckoutDeps, handle: SessionHandle, body: unknown) {
  const { voucher: code } = parse(VoucherBody, body);
  const voucher = deps.view.voucher(code.trim());
  if (!voucher) throw new VoucherRefusedError('not found');
  const selection = await currentSelection(deps, handle);
  const problem = voucherProblem(deps.view, voucher, handle.session, selection, now(deps));
  if (problem) throw new VoucherRefusedError(problem);
  const entered = selection.vouchers.map((c) => deps.view.voucher(c)).filter((v) => v !== undefined);
  if (entered.some((v) => v.voucher === voucher.voucher)) return envelope(deps, handle, selection);
  if (entered.some((v) => v.type === voucher.type)) throw new VoucherRefusedError(`a ${voucher.type} voucher is already used`);
  return change(deps, handle, { addVoucher: voucher.voucher });
}

/** `DELETE vouchers/{voucher}`: 404 `{voucher}` when the selection does not have it. */
export async function removeVoucher(deps: CheckoutDeps, handle: SessionHandle, code: string) {
  const selection = await currentSelection(deps, handle);
  const kept = selection.vouchers.filter((c) => c.toUpperCase() !== code.trim().toUpperCase());
  if (!selection.id || kept.length === selection.vouchers.length) throw new NotFoundError('voucher');
  return envelope(deps, handle, await deps.cart.changeSelection(selection.id, { removeVoucher: code.trim() }));
}
