import { z } from 'zod';
import { ValidationError, fieldsFromIssues } from '@commerce/shared-errors';
import type { CartClient } from '@commerce/cart-contracts';
import { ProductQuerySchema, type CatalogClient } from '@commerce/catalog-contracts';
import { ProductNotFoundError } from './checkout.errors';
import type { StoreView } from './envelope';
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

/**
 * The session of a token; an unknown, expired or malformed token gets a fresh anonymous session (never an
 * error), in the country the request comes from when known (`detectedCountry`: the ingress's header).
 */
export async function openSession(deps: CheckoutDeps, token: string | undefined, detectedCountry?: string | null): Promise<SessionHandle> {
  if (token && TOKEN_FORMAT.test(token)) {
    const session = await deps.sessions.get(token);
    if (session) return { token, session, isNew: false };
  }
  const fresh = {
    token: deps.sessions.newToken(),
    session: deps.view.initialSession((deps.now ?? (() => new Date()))(), detectedCountry),
    isNew: true,
  };
  await deps.sessions.set(fresh.token, fresh.session);
  return fresh;
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
