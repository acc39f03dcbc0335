import type { IncomingMessage } from 'node:http';
import Router from '@koa/router';
import type Koa from 'koa';
import type { LeanRoute } from '@commerce/shared-http';
import { createCheckoutOpenApi } from '@commerce/checkout-contracts';
import { mountProductRoutes } from './product.routes';
import { mountSelectionRoutes, selectionLeanRoutes, type CheckoutLeanSession } from './selection.routes';
import { mountLoginRoutes } from './login.routes';
import { mountOrderHistoryRoutes } from './order-history.routes';
import { mountPaymentRoutes, paymentLeanRoutes } from './payment.routes';
import { cachingCatalogClient } from './product-cache';
import { cachedSelectionAnswer, versionedCart } from './selection-answer-cache';
import { clientAddress, headerText } from './client-address';
import type { IpCountryLookup } from './geoip';
import { openSession, type CheckoutDeps, type SessionHandle } from '@commerce/checkout-core';

export const CHECKOUT_PREFIX = '/api/checkout';
export const TOKEN_HEADER = 'api-token';

/** The checkout's use-case dependencies, plus what only the transport reads. */
export interface CheckoutHttpDeps extends CheckoutDeps {
  /** A header the ingress sets to the visitor's country (e.g. `cf-ipcountry`); trusted, so only set it behind such an ingress. */
  countryHeader?: string;
  /** How long the selection routes keep a product they show (ms; default 2000, 0: no cache). Product routes always ask the catalog. */
  productCacheMs?: number;
  /** Behind one ingress that appends the client to `X-Forwarded-For`: the login limits and GeoIP use that address. */
  trustProxy?: boolean;
  /** The country of a new visitor's address when no trusted header names it (decision 39). */
  geoip?: IpCountryLookup;
}

interface CheckoutState {
  checkout?: SessionHandle;
}

/** The session of this request; opened once, by the session middleware or by the error envelope. */
export async function sessionOf(deps: CheckoutHttpDeps, ctx: Koa.Context): Promise<SessionHandle> {
  const state = ctx.state as CheckoutState;
  state.checkout ??= await openRequestSession(deps, ctx.req);
  return state.checkout;
}

/**
 * The session a request's token names (a fresh one for none, an unknown or an expired one); `changing`: the request
 * stores a fresh session (`openSession`: its first store admitted with the read, decision 187).
 */
export function openRequestSession(deps: CheckoutHttpDeps, req: IncomingMessage, changing = false): Promise<SessionHandle> {
  const header = headerText(req, TOKEN_HEADER).trim();
  return openSession(deps, header || undefined, () => visitorCountry(deps, req), clientAddress(req, deps.trustProxy), changing);
}

/** A new visitor's country: the trusted header's, else the GeoIP table's for their address, else none. */
function visitorCountry(deps: CheckoutHttpDeps, req: IncomingMessage): string | null {
  const named = deps.countryHeader ? headerText(req, deps.countryHeader).trim() : '';
  // Cloudflare's XX (unknown) and T1 (Tor) are not countries: fall through to the address.
  if (/^[A-Za-z]{2}$/.test(named) && !/^(xx|t1)$/i.test(named)) return named.toUpperCase();
  return deps.geoip?.countryOf(clientAddress(req, deps.trustProxy)) ?? null;
}

/** An error body's token: the session's once opened, else the one the request named. */
export function errorToken(req: IncomingMessage, handle: SessionHandle | undefined): Record<string, unknown> {
  if (handle) return { token: handle.token };
  const header = headerText(req, TOKEN_HEADER).trim();
  return header ? { token: header } : {};
}

/** The token every checkout body carries, errors included (spec: "The body still has token"). */
export const checkoutErrorBody = (ctx: Koa.Context): Record<string, unknown> => errorToken(ctx.req, (ctx.state as CheckoutState).checkout);

/**
 * Opens the session of every checkout request before its body is read (see createHttpApp's
 * `beforeBody`), so that errors, a malformed body's included, carry the token.
 */
export function checkoutSessionMiddleware(deps: CheckoutHttpDeps): Koa.Middleware {
  return async (ctx, next) => {
    if (ctx.path.startsWith(`${CHECKOUT_PREFIX}/`) && ctx.path !== `${CHECKOUT_PREFIX}/openapi.json`) {
      const handle = await sessionOf(deps, ctx);
      ctx.set('API-Token', handle.token);
      try {
        await next();
      } finally {
        // A use case may have renewed the token (login, logout): the answer carries the new one.
        ctx.set('API-Token', handle.token);
      }
      return;
    }
    await next();
  };
}

/** The checkout JSON API at /api/checkout: parse, call the use case, answer the envelope. */
export function createCheckoutRouter(deps: CheckoutHttpDeps): Router {
  return createCheckoutRoutes(deps).router;
}

/**
 * The checkout's router and the lean routes (decision 67) that answer its selection changes before the
 * app, on the same dependencies (one product cache, one versioned cart): a server with both mounts the
 * router on an app with `checkoutErrorBody` and `checkoutSessionMiddleware`, as without.
 */
export function createCheckoutRoutes(deps: CheckoutHttpDeps): { router: Router; leanRoutes: LeanRoute[] } {
  const router = new Router({ prefix: CHECKOUT_PREFIX });

  // Generated from the zod schemas the routes validate with, for this store's extra product filter fields.
  const openApi = createCheckoutOpenApi({ productFilterFields: deps.view.store.productFilterFields });
  router.get('/openapi.json', (ctx) => {
    ctx.body = openApi;
  });

  // The shared parser reads JSON only: a body of another type (a form, or text/plain as fetch sends a string
  // by default) would be left unread and the request served as if it had none. Refuse it instead.
  // (A bodiless POST comes with Content-Length 0 and no type: that is no body.)
  router.use(async (ctx, next) => {
    const length = ctx.request.length;
    const hasBody = length === undefined ? ctx.get('transfer-encoding') !== '' : length > 0;
    if (hasBody && !ctx.request.is('json')) ctx.throw(415);
    await next();
  });

  router.use(async (ctx, next) => {
    await next();
    if (ctx.query['pretty'] === undefined || !ctx.body) return;
    // A rendered answer (decision 48) is already JSON, as text or bytes.
    const raw: unknown = ctx.body;
    const json = Buffer.isBuffer(raw) ? raw.toString('utf8') : raw;
    const body: unknown = typeof json === 'string' && ctx.response.is('json') ? JSON.parse(json) : raw;
    if (typeof body === 'object') {
      ctx.type = 'application/json';
      ctx.body = JSON.stringify(body, null, 2);
    }
  });

  // Every route that changes a selection raises its version, so that no replica answers an older rendering.
  const routeDeps: CheckoutHttpDeps = { ...deps, cart: versionedCart(deps.cart, deps.sessions) };
  const productCacheMs = deps.productCacheMs ?? 2000;
  const selectionDeps = { ...routeDeps, catalog: cachingCatalogClient(deps.catalog, { ttlMs: productCacheMs }) };
  // One answer cache for the router and the lean routes: a change answered on either is kept for `GET selection`.
  const selectionAnswer = cachedSelectionAnswer(selectionDeps, { ttlMs: productCacheMs });
  mountSelectionRoutes(router, selectionDeps, sessionOf, productCacheMs, selectionAnswer);
  const leanSession: CheckoutLeanSession = {
    // The session with its selection's version (decision 57's one round trip): a change's answer is kept
    // as the rendering of the version it raised when that is one more than this (decision 72; amends 70).
    open: (req) => openRequestSession(deps, req),
    // `POST items/{item}` stores a fresh visitor's session: admitted with its read (decision 187).
    openChanging: (req) => openRequestSession(deps, req, true),
    errorBody: errorToken,
    headers: (handle) => ({ 'API-Token': handle.token }),
  };
  const leanRoutes = [
    ...selectionLeanRoutes(selectionDeps, CHECKOUT_PREFIX, leanSession, selectionAnswer),
    // `POST payment` and `payment-result` before the app too (decision 199).
    ...paymentLeanRoutes(routeDeps, CHECKOUT_PREFIX, leanSession),
  ];

  mountProductRoutes(router, routeDeps, sessionOf);

  mountLoginRoutes(router, routeDeps, sessionOf);

  mountOrderHistoryRoutes(router, routeDeps, sessionOf);

  mountPaymentRoutes(router, routeDeps, sessionOf);

  return { router, leanRoutes };
}
