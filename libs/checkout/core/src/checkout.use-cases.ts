import { z } from 'zod';
import { ValidationError, fieldsFromIssues } from '@commerce/shared-errors';
import type { CartClient } from '@commerce/cart-contracts';
import { ProductQuerySchema, type CatalogClient } from '@commerce/catalog-contracts';
import { ItemNotFoundError, ProductNotFoundError } from './checkout.errors';
import { emptySelection, selectionEnvelope, type StoreView } from './envelope';
import type { CheckoutSession, SessionPort } from './session';

export interface CheckoutDeps {
  sessions: SessionPort;
  catalog: CatalogClient;
  cart: CartClient;
  view: StoreView;
  now?: () => Date;
}

/** The session of a request: the one its `API-Token` names, or a new one with a new token. */
export interface SessionHandle {
  token: string;
  session: CheckoutSession;
  isNew: boolean;
}

/** What a token we issued looks like (32 random bytes, base64url); anything else is not looked up. */
const TOKEN_FORMAT = /^[A-Za-z0-9_-]{20,128}$/;

export async function openSession(deps: CheckoutDeps, token: string | undefined): Promise<SessionHandle> {
  if (token && TOKEN_FORMAT.test(token)) {
    const session = await deps.sessions.get(token);
    if (session) return { token, session, isNew: false };
  }
  const fresh = { token: deps.sessions.newToken(), session: deps.view.initialSession((deps.now ?? (() => new Date()))()), isNew: true };
  await deps.sessions.set(fresh.token, fresh.session);
  return fresh;
}

/** The open selection of the session, or an empty one when it has none (or its selection was closed). */
async function currentSelection(deps: CheckoutDeps, handle: SessionHandle) {
  if (handle.session.selectionId) {
    const selection = await deps.cart.getSelection(handle.session.selectionId);
    if (selection) return selection;
  }
  return emptySelection(deps.view, handle.session);
}

export async function getSelection(deps: CheckoutDeps, handle: SessionHandle) {
  return selectionEnvelope(deps.view, handle.token, handle.session, await currentSelection(deps, handle));
}

const AddItemBody = z.object({ quantity: z.number().int().min(1).max(10_000).default(1) }).strict();
const ITEM_ID = /^\d{1,15}-\d{1,15}$/;

/** `POST items/{item}`: resolve the item in the catalog, then add it to the session's selection (made on the first item). */
export async function addItem(deps: CheckoutDeps, handle: SessionHandle, itemId: string, body: unknown) {
  const parsed = AddItemBody.safeParse(body ?? {});
  if (!parsed.success) throw new ValidationError(fieldsFromIssues(parsed.error.issues));
  const context = deps.view.priceContext(handle.session);
  const item = ITEM_ID.test(itemId) ? await deps.catalog.getItem(itemId, context) : null;
  if (!item) throw new ItemNotFoundError();

  let selectionId = handle.session.selectionId;
  if (!selectionId || !(await deps.cart.getSelection(selectionId))) {
    const created = await deps.cart.createSelection({
      currency: deps.view.currencyOf(handle.session.country),
      country: handle.session.country,
      language: handle.session.language,
    });
    selectionId = created.id;
    handle.session = { ...handle.session, selectionId };
    await deps.sessions.set(handle.token, handle.session);
  }
  const selection = await deps.cart.addItem(selectionId, {
    item: item.item,
    product: item.product,
    size: item.size,
    sku: item.sku,
    ean: item.ean,
    productName: item.productName,
    brandName: item.brandName,
    priceEachAsNumber: item.priceAsNumber,
    quantity: parsed.data.quantity,
  });
  return selectionEnvelope(deps.view, handle.token, handle.session, selection);
}

/** `POST products`: the catalog's search in the session's market, pricelist and language. */
export async function searchProducts(deps: CheckoutDeps, handle: SessionHandle, body: unknown) {
  const parsed = ProductQuerySchema.safeParse(body ?? {});
  if (!parsed.success) throw new ValidationError(fieldsFromIssues(parsed.error.issues));
  const result = await deps.catalog.searchProducts(parsed.data, deps.view.priceContext(handle.session));
  return { token: handle.token, products: result.products, productCount: result.productCount, filter: result.filter };
}

/** `GET products/{product}`. */
export async function getProduct(deps: CheckoutDeps, handle: SessionHandle, productId: string) {
  const product = /^\d{1,15}$/.test(productId) ? await deps.catalog.getProduct(productId, deps.view.priceContext(handle.session)) : null;
  if (!product) throw new ProductNotFoundError();
  return { token: handle.token, product };
}
