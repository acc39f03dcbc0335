import type { CartClient } from '@commerce/cart-contracts';
import {
  envelopeWithoutLogin,
  getSelection,
  loggedInOf,
  type CheckoutDeps,
  type CheckoutSession,
  type SessionHandle,
  type SessionPort,
} from '@commerce/checkout-core';
import { productCachedUntil } from './product-cache';

/** A body already serialised as JSON: the route answers it as is (`sessionRoute`). */
export class RawJson {
  constructor(readonly json: string) {}
}

/**
 * The edge's cart client: every change it asks for raises the selection's version in the session store
 * (decision 48), after the cart answered and before the edge does, failed calls included (a change may
 * have been made before the answer was lost). A new selection has nothing rendered yet: no raise.
 */
export function versionedCart(cart: CartClient, sessions: Pick<SessionPort, 'selectionChanged'>): CartClient {
  const raising = async <T>(ids: () => Array<string | null | undefined>, call: Promise<T>): Promise<T> => {
    try {
      return await call;
    } finally {
      await Promise.all([...new Set(ids())].filter((id): id is string => Boolean(id)).map((id) => sessions.selectionChanged(id)));
    }
  };
  return {
    ...cart,
    addItem: (id, command) => raising(() => [id], cart.addItem(id, command)),
    changeSelection: (id, change) => raising(() => [id], cart.changeSelection(id, change)),
    closeSelection: (id) => raising(() => [id], cart.closeSelection(id)),
    claimSelection: (customerId, anonymousId) => {
      let saved: string | undefined;
      const claimed = cart.claimSelection(customerId, anonymousId).then((s) => ((saved = s?.id), s));
      return raising(() => [anonymousId, saved], claimed);
    },
  };
}

export interface SelectionAnswerCacheOptions {
  /** How long a rendered answer may be reused (ms), and never longer than the products it shows are cached; 0: off. */
  ttlMs: number;
  maxEntries?: number;
  now?: () => number;
}

interface Rendered {
  version: number;
  until: number;
  /** The serialised envelope without `token` and `loggedIn`, from its first key on (its `{` cut off). */
  rest: string;
}

/**
 * `GET selection` through a cache of rendered answers (decision 48): the envelope of a selection as the
 * session sees it (country, state, language, a buyer's pricelist), serialised once and kept with the selection's version.
 * A request reads the version from the session store (one round trip beside the session's), and reuses the
 * rendering made at that version; any change through any edge replica raises the version first, so an
 * answer older than a change that was answered is never served. The token and `loggedIn` are spliced in
 * per request. Time-dependent parts (voucher validity) and the products are at most `ttlMs` old, as the
 * products of an uncached answer are (decision 31).
 */
/**
 * What a rendering is kept under: the session's fields but its creation time, so that whatever the envelope
 * may read from the session (country, state, language, a buyer's pricelist, …) is in the key, fields added
 * later included; a field that does not matter only makes more entries.
 */
const keyOf = ({ createdAt: _createdAt, ...session }: CheckoutSession): string => JSON.stringify(session);

export function cachedSelectionAnswer(deps: CheckoutDeps, options: SelectionAnswerCacheOptions) {
  const max = options.maxEntries ?? 10_000;
  const now = options.now ?? Date.now;
  const entries = new Map<string, Rendered>();

  const render = async (handle: SessionHandle, selectionId: string, version: number): Promise<string | null> => {
    const selection = await deps.cart.getSelection(selectionId);
    if (!selection) return null;
    const { token: _token, ...body } = await envelopeWithoutLogin(deps, handle, selection);
    const rest = JSON.stringify(body).slice(1);
    const until = Math.min(now() + options.ttlMs, ...body.products.map((p) => productCachedUntil(p) ?? Infinity));
    const key = keyOf(handle.session);
    entries.delete(key);
    entries.set(key, { version, until, rest });
    // Oldest first out: a Map iterates in insertion order.
    for (const oldest of entries.keys()) {
      if (entries.size <= max) break;
      entries.delete(oldest);
    }
    return rest;
  };

  return async (handle: SessionHandle): Promise<unknown> => {
    const { selectionId } = handle.session;
    if (!selectionId || options.ttlMs <= 0) return getSelection(deps, handle);
    // The version before the selection: a rendering is never older than the version it is kept under.
    const [version, loggedIn] = await Promise.all([deps.sessions.selectionVersion(selectionId), loggedInOf(deps, handle)]);
    const hit = entries.get(keyOf(handle.session));
    const rest = hit && hit.version === version && hit.until > now() ? hit.rest : await render(handle, selectionId, version);
    // Closed or gone: the uncached path finds the session's next selection (or an empty one).
    if (rest === null) return getSelection(deps, handle);
    const tail = loggedIn ? `${rest.slice(0, -1)},"loggedIn":${JSON.stringify(loggedIn)}}` : rest;
    return new RawJson(`{"token":${JSON.stringify(handle.token)},${tail}`);
  };
}
