import type Router from '@koa/router';
import {
  addItem,
  addVoucher,
  changeLine,
  getSelection,
  removeVoucher,
  setCountry,
  setLanguage,
  setPaymentFields,
  setPaymentMethod,
  setQuantities,
  setShippingMethod,
  type CheckoutDeps,
  type SessionHandle,
} from '@commerce/checkout-core';
import type { LeanRoute } from '@commerce/shared-http';
import { envelopeParts, requestBody, sessionRoute, type SessionOf } from './route-handler';
import { cachedSelectionAnswer, keptChange, type SelectionAnswer } from './selection-answer-cache';

/**
 * The selection's routes (DESIGN §6): parse the path and body, call the use case, answer the envelope.
 * `GET selection` reuses a rendered answer for up to `answerCacheMs` (decision 48; 0: off); `deps.cart`
 * must then raise the selection's version on every change (`versionedCart`).
 */
export function mountSelectionRoutes(
  router: Router,
  deps: CheckoutDeps,
  sessionOf: SessionOf,
  answerCacheMs = 0,
  selectionAnswer: SelectionAnswer = cachedSelectionAnswer(deps, { ttlMs: answerCacheMs }),
): void {
  const on = sessionRoute(deps, sessionOf);
  // The line changes' answers are kept as their selection's rendering (decision 72).
  const kept = keptChange.bind(undefined, deps, selectionAnswer);

  router.get(
    '/selection',
    on((h) => selectionAnswer(h)),
  );

  router.post(
    '/items/:item',
    on((h, p, ctx) => kept(h, (d) => addItem(d, h, p['item']!, requestBody(ctx)))),
  );
  router.post(
    '/items/:item/quantity/:n',
    on((h, p) => kept(h, (d) => addItem(d, h, p['item']!, undefined, p['n']!))),
  );
  router.put(
    '/items',
    on((h, _p, ctx) => kept(h, (d) => setQuantities(d, h, requestBody(ctx)))),
  );

  router.post(
    '/lines/:line/quantity/:n',
    on((h, p) => kept(h, (d) => changeLine(d, h, p['line']!, 'add', p['n']))),
  );
  router.delete(
    '/lines/:line/quantity/:n',
    on((h, p) => kept(h, (d) => changeLine(d, h, p['line']!, 'remove', p['n']))),
  );
  router.put(
    '/lines/:line/quantity/:n',
    on((h, p) => kept(h, (d) => changeLine(d, h, p['line']!, 'set', p['n']))),
  );
  router.delete(
    '/lines/:line',
    on((h, p) => kept(h, (d) => changeLine(d, h, p['line']!, 'delete'))),
  );

  router.put(
    '/countries/:country',
    on((h, p, ctx) => setCountry(deps, h, p['country']!, requestBody(ctx))),
  );
  router.put(
    '/countries/:country/states/:state',
    on((h, p, ctx) => setCountry(deps, h, p['country']!, requestBody(ctx), p['state'])),
  );
  router.put(
    '/languages/:language',
    on((h, p) => setLanguage(deps, h, p['language']!)),
  );

  router.put(
    '/payment-methods/:paymentMethod',
    on((h, p) => setPaymentMethod(deps, h, p['paymentMethod']!)),
  );
  router.put(
    '/shipping-methods/:shippingMethod',
    on((h, p) => setShippingMethod(deps, h, p['shippingMethod']!)),
  );
  router.put(
    '/payment-fields',
    on((h, _p, ctx) => setPaymentFields(deps, h, requestBody(ctx))),
  );

  router.post(
    '/vouchers',
    on((h, _p, ctx) => addVoucher(deps, h, requestBody(ctx))),
  );
  router.delete(
    '/vouchers/:voucher',
    on((h, p) => removeVoucher(deps, h, p['voucher']!)),
  );
}

/**
 * How a lean checkout route opens the request's session and carries its token (see createCheckoutRoutes);
 * `openChanging` opens it for a route that stores a fresh session (`POST items/{item}`), else `open` does.
 */
export type CheckoutLeanSession = Pick<Required<LeanRoute<SessionHandle>>, 'open' | 'errorBody' | 'headers'> & {
  openChanging?: Required<LeanRoute<SessionHandle>>['open'];
};

/** A lean checkout route's answers: its envelope as the router's route sends it, every domain error as the error middleware answers it (`{token, errors}`). */
export const envelopeAnswered = {
  passes: () => true,
  json: (answer: unknown) => envelopeParts(answer) ?? JSON.stringify(answer),
} satisfies Pick<LeanRoute, 'passes' | 'json'>;

/**
 * The selection's busiest routes answered before the Koa app, with the same use cases as their router
 * routes: `POST items/{item}` (decision 67) and `GET selection` (decision 82); the router keeps them for
 * every request these leave to it (a query string such as `?pretty`, another content type, a large body, a
 * `GET` with a body, `HEAD`).
 */
export function selectionLeanRoutes(
  deps: CheckoutDeps,
  prefix: string,
  session: CheckoutLeanSession,
  selectionAnswer?: SelectionAnswer,
): LeanRoute[] {
  const escaped = prefix.replaceAll('/', '\\/');
  const { openChanging, ...opening } = session;
  const addItemRoute: LeanRoute<SessionHandle> = {
    ...opening,
    ...(openChanging ? { open: openChanging } : {}),
    ...envelopeAnswered,
    method: 'POST',
    route: `${prefix}/items/:item`,
    path: new RegExp(`^${escaped}\\/items\\/([^/]+)$`),
    bodyless: true,
    handle: ([item], body, handle) =>
      selectionAnswer
        ? keptChange(deps, selectionAnswer, handle, (d) => addItem(d, handle, item!, body))
        : addItem(deps, handle, item!, body),
  };
  // The kept rendering (decision 48) without Koa's context, middleware and router: less work and less
  // garbage a `GET` (the edge's scavenges, decision 82).
  const getSelectionRoute: LeanRoute<SessionHandle> = {
    ...opening,
    ...envelopeAnswered,
    method: 'GET',
    route: `${prefix}/selection`,
    path: new RegExp(`^${escaped}\\/selection$`),
    bodyless: true,
    handle: (_params, _body, handle) => (selectionAnswer ? selectionAnswer(handle) : getSelection(deps, handle)),
  };
  return [addItemRoute, getSelectionRoute];
}
