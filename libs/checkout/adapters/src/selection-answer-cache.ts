import type { CartClient, SelectionDto } from '@commerce/cart-contracts';
import {
  answerBytes,
  envelopeWithoutLogin,
  getSelection,
  loggedInOf,
  RawJson,
  type CheckoutDeps,
  type CheckoutSession,
  type SessionHandle,
  type SessionPort,
} from '@commerce/checkout-core';
import type { ProductDto } from '@commerce/catalog-contracts';
import { productFetchedAt } from './product-cache';

/** Where the edge's answers already serialised are answered as they are (moved to checkout-core, decision 58). */
export { RawJson } from '@commerce/checkout-core';

/**
 * The count each selection a change answered was raised to (decision 48's version), by the cart's answer:
 * the answer cache keeps a change's own envelope as the rendering of that version when nothing else changed
 * the selection in between (`keepChange`, decision 72).
 */
const raisedTo = new WeakMap<SelectionDto, number>();

/**
 * Anonymous selections the cart made with their first change in this process's request (decision 157): no token or
 * replica knows the id yet, so nothing has raised the version (it is 0) and the answer is that version's state.
 */
const madeWithChange = new WeakSet<SelectionDto>();

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
  /** One selection's change (its id, or null: the one answered): its answer remembers the count its raise gave. */
  const changing = async (id: string | null, call: Promise<SelectionDto>): Promise<SelectionDto> => {
    let answered: SelectionDto | undefined;
    try {
      answered = await call;
      return answered;
    } finally {
      const raising = id ?? answered?.id;
      const raised = raising === undefined ? undefined : await sessions.selectionChanged(raising);
      if (answered && typeof raised === 'number' && answered.id === raising) raisedTo.set(answered, raised);
    }
  };
  return {
    ...cart,
    // A selection made with its first change (decision 157): a new one has no rendering to outdate (nobody knew its
    // id), so nothing is raised; a customer's saved selection found instead was changed, and is raised.
    createSelection: async (command) => {
      if (!command.change) return cart.createSelection(command);
      if (command.customerId) return changing(null, cart.createSelection(command));
      const created = await cart.createSelection(command);
      madeWithChange.add(created);
      return created;
    },
    addItem: (id, command) => changing(id, cart.addItem(id, command)),
    changeSelection: (id, change) => changing(id, cart.changeSelection(id, change)),
    closeSelection: (id) => raising(() => [id], cart.closeSelection(id)),
    claimSelection: (customerId, anonymousId) => {
      let saved: string | undefined;
      const claimed = cart.claimSelection(customerId, anonymousId).then((s) => ((saved = s?.id), s));
      return raising(() => [anonymousId, saved], claimed);
    },
  };
}

/**
 * Runs a selection change's use case with a cart that notes the selection it answered, and offers the
 * answer to the answer cache (`keepChange`): the next `GET selection` of that selection and session is then
 * answered without a cart read or a compose. A kept answer is answered as the kept rendering's bytes with the
 * token around them (serialised once, for this answer and the `GET`s after it; decision 107).
 */
export async function keptChange<T>(
  deps: CheckoutDeps,
  answers: SelectionAnswer,
  handle: SessionHandle,
  run: (deps: CheckoutDeps) => Promise<T>,
): Promise<T | RawJson> {
  let changed: SelectionDto | undefined;
  const noting = (call: Promise<SelectionDto>) => call.then((s) => ((changed = s), s));
  const cart: CartClient = {
    ...deps.cart,
    createSelection: (command) => (command.change ? noting(deps.cart.createSelection(command)) : deps.cart.createSelection(command)),
    addItem: (id, command) => noting(deps.cart.addItem(id, command)),
    changeSelection: (id, change) => noting(deps.cart.changeSelection(id, change)),
  };
  const answer = await run({ ...deps, cart });
  return changed ? answers.keepChange(handle, answer, changed) : answer;
}

export interface SelectionAnswerCacheOptions {
  /**
   * How old the products of a rendered answer may be before it is made again (ms; 0: off): served as is
   * until 1 to 1.5 × this after its products were fetched, then served while one refresh runs in the
   * background, and never after 2 × this.
   */
  ttlMs: number;
  /**
   * How long a rendering may go without reading the selection from the cart again and composing it anew
   * (ms; default 30 s): what changes without a version raise (a selection closed by the order service, a
   * voucher's validity dates, `newProduct`) shows within this. Products are checked every `ttlMs`.
   */
  maxAgeMs?: number;
  maxEntries?: number;
  now?: () => number;
  /** In [0, 1): spreads the refreshes of renderings made at once (tests pass a fixed one). */
  random?: () => number;
  /** A background refresh that failed (the rendering is served until its bound, then made in the request). */
  onRefreshError?: (error: unknown) => void;
}

interface Rendered {
  version: number;
  /** When it was composed from the cart's selection. */
  renderedAt: number;
  /** The products it shows, as the product cache answered them: while it answers the same objects, they are current. */
  products: ProductDto[];
  /** Served as is until then; from then on served while one refresh runs. */
  refreshAt: number;
  /** Never served from then on: the request renders. */
  staleAt: number;
  /** The serialised envelope without `token` and `loggedIn`, from its first key on (its `{` cut off), as bytes. */
  rest: Buffer;
  refreshing?: boolean;
}

/** The members of a selection envelope (`selectionEnvelope`) and `loggedIn`: a change's answer with any other is not kept. */
const ENVELOPE_MEMBERS = new Set([
  'token',
  'selection',
  'products',
  'location',
  'paymentMethods',
  'paymentFields',
  'shippingMethods',
  'countries',
  'language',
  'languages',
  'loggedIn',
]);

/** `GET selection`'s answer, and what keeps a change's answer as its rendering (decision 72). */
export interface SelectionAnswer {
  (handle: SessionHandle): Promise<unknown>;
  /**
   * A change's answer (`envelope` of `changed`), kept as the rendering of the selection's version the change
   * raised it to when that is one more than the version the request read with its session, before the cart
   * call: no change of that selection (through any replica) was answered between that read and this raise,
   * so the state the cart answered includes every change answered before it, and any later change raises the
   * version again before it is answered. Answers what to send: when kept, the same JSON as the answer, made
   * from the kept rendering's bytes (serialised here once, not kept as objects: decision 107); else the answer.
   */
  keepChange<T>(handle: SessionHandle, answer: T, changed: SelectionDto): T | RawJson;
}

/**
 * An envelope `{token, …rendering, loggedIn?}` in parts: the token's head, the kept rendering's bytes as they
 * are (kilobytes, not copied into a buffer of each answer), and `loggedIn` when given. The same JSON as the
 * envelope's members in that order.
 */
function spliced(token: string, rest: Buffer, loggedIn: unknown): RawJson {
  const head = Buffer.from(`{"token":${JSON.stringify(token)},`);
  if (loggedIn === undefined) return new RawJson([head, rest]);
  const tail = Buffer.from(`,"loggedIn":${JSON.stringify(loggedIn)}}`);
  return new RawJson([head, rest.subarray(0, rest.length - 1), tail]);
}

/**
 * What a rendering is kept under: the session's fields but its creation time and those of the request's
 * own state, so that whatever the envelope may read from the session (country, state, language, a buyer's
 * pricelist, …) is in the key, fields added later included; a field that does not matter only makes more
 * entries.
 */
const keyOf = ({ createdAt: _createdAt, ...session }: CheckoutSession): string => JSON.stringify(session);

/**
 * `GET selection` through a cache of rendered answers (decision 48): the envelope of a selection as the
 * session sees it (country, state, language, a buyer's pricelist), serialised once and kept with the
 * selection's version. A request takes the version read with its session (one round trip, decision 57),
 * and reuses the rendering made at that version; any change through any edge replica raises the version
 * first, so an answer older than a change that was answered is never served. The token and `loggedIn` are
 * spliced in per request. The products (and the time-dependent parts: voucher validity) are refreshed in
 * the background once the products are `ttlMs` old, at a jittered moment, and a rendering whose products
 * are `2 × ttlMs` old is never served (decision 57).
 */
export function cachedSelectionAnswer(deps: CheckoutDeps, options: SelectionAnswerCacheOptions): SelectionAnswer {
  const max = options.maxEntries ?? 10_000;
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const ttl = options.ttlMs;
  const maxAge = Math.max(options.maxAgeMs ?? 30_000, ttl);
  const entries = new Map<string, Rendered>();
  /** Renderings under way, by key and version: concurrent misses of one selection share one. */
  const pending = new Map<string, Promise<Buffer | null>>();

  /**
   * Sets when a rendering is refreshed and when it is no longer served: from its oldest product's last
   * answer from the catalog (products are `ttlMs` old at most, 2 × `ttlMs` while a refresh runs) and from
   * when it was composed (`maxAge`); refreshes spread over half a `ttlMs`, so that renderings made at once
   * are not all made again at once.
   */
  const timed = (entry: Rendered): Rendered => {
    // The products' last answers, moved on by every check that found them unchanged (not the rendering's own
    // time: that pinned every rendering to 2 × ttl and made it again in a request, decision 71). A
    // rendering without products is bound by maxAge alone.
    const fetched = entry.products.map((p) => productFetchedAt(p) ?? entry.renderedAt);
    const verified = fetched.length ? Math.min(...fetched) : Infinity;
    entry.refreshAt = Math.min(verified + ttl, entry.renderedAt + maxAge - ttl) + (ttl * random()) / 2;
    entry.staleAt = Math.min(verified + 2 * ttl, entry.renderedAt + maxAge);
    entry.refreshing = false;
    return entry;
  };

  /**
   * A rendering due for refresh: when it is not due for composing anew and the product cache answers the
   * same products (the catalog's answers unchanged), it is current and kept; else it is made again.
   */
  const revalidate = async (hit: Rendered, handle: SessionHandle, selectionId: string, version: number, key: string) => {
    if (now() < hit.renderedAt + maxAge - ttl) {
      const context = deps.view.priceContext(handle.session);
      const products = await Promise.all(hit.products.map((p) => deps.catalog.getProduct(p.product, context)));
      if (products.every((p, i) => p === hit.products[i])) {
        timed(hit);
        return;
      }
    }
    await shared(handle, selectionId, version, key);
  };

  const render = async (handle: SessionHandle, selectionId: string, version: number, key: string): Promise<Buffer | null> => {
    const started = now();
    const selection = await deps.cart.getSelection(selectionId);
    if (!selection) {
      entries.delete(key);
      return null;
    }
    const { token: _token, ...body } = await envelopeWithoutLogin(deps, handle, selection);
    const rest = answerBytes(body).subarray(1);
    keep(key, { version, renderedAt: started, products: body.products, rest, refreshAt: 0, staleAt: 0 });
    return rest;
  };

  const keep = (key: string, entry: Rendered) => {
    const current = entries.get(key);
    // A slower rendering of an older version never replaces a newer one.
    if (current && current.version > entry.version) return;
    entries.delete(key);
    entries.set(key, timed(entry));
    // Oldest first out: a Map iterates in insertion order.
    for (const oldest of entries.keys()) {
      if (entries.size <= max) break;
      entries.delete(oldest);
    }
  };

  const shared = (handle: SessionHandle, selectionId: string, version: number, key: string): Promise<Buffer | null> => {
    const id = `${version}|${key}`;
    let rendering = pending.get(id);
    if (!rendering) {
      rendering = render(handle, selectionId, version, key).finally(() => pending.delete(id));
      pending.set(id, rendering);
    }
    return rendering;
  };

  const answer = async (handle: SessionHandle, selectionId: string): Promise<Buffer | null> => {
    const seen = handle.versionRead;
    // The version before the selection: a rendering is never older than the version it is kept under.
    const version = seen?.selectionId === selectionId ? seen.version : await deps.sessions.selectionVersion(selectionId);
    const key = keyOf(handle.session);
    const hit = entries.get(key);
    if (!hit || hit.version !== version) return shared(handle, selectionId, version, key);
    const at = now();
    if (at >= hit.staleAt) return shared(handle, selectionId, version, key);
    if (at >= hit.refreshAt && !hit.refreshing) {
      hit.refreshing = true;
      revalidate(hit, handle, selectionId, version, key).catch((error: unknown) => {
        hit.refreshing = false;
        options.onRefreshError?.(error);
      });
    }
    return hit.rest;
  };

  const keepChange = <T>(handle: SessionHandle, answer: T, changed: SelectionDto): T | RawJson => {
    const seen = handle.versionRead;
    const raised = raisedTo.get(changed);
    // Made with its change in this request (decision 157), or raised to one past the version read with the session.
    const version = madeWithChange.has(changed)
      ? 0
      : seen && seen.selectionId === changed.id && raised !== undefined && raised === seen.version + 1
        ? raised
        : undefined;
    if (ttl <= 0 || version === undefined || handle.session.selectionId !== changed.id) return answer;
    if (typeof answer !== 'object' || answer === null || Object.getPrototypeOf(answer) !== Object.prototype) return answer;
    const members = Object.keys(answer);
    // The token first and `loggedIn` (if any) last, as `envelope` makes them: the parts are then the answer's JSON.
    if (members[0] !== 'token' || !members.every((m, i) => ENVELOPE_MEMBERS.has(m) && (m !== 'loggedIn' || i === members.length - 1)))
      return answer;
    const { token, loggedIn, ...body } = answer as { token?: unknown; loggedIn?: unknown; products?: ProductDto[] };
    if (typeof token !== 'string' || !Array.isArray(body.products)) return answer;
    const rest = answerBytes(body).subarray(1);
    keep(keyOf(handle.session), { version, renderedAt: now(), products: body.products, rest, refreshAt: 0, staleAt: 0 });
    return spliced(token, rest, loggedIn);
  };

  const answerOf = async (handle: SessionHandle): Promise<unknown> => {
    const { selectionId } = handle.session;
    if (!selectionId || ttl <= 0) return getSelection(deps, handle);
    const [rest, loggedIn] = await Promise.all([
      answer(handle, selectionId),
      handle.session.customerId ? loggedInOf(deps, handle) : undefined,
    ]);
    // Closed or gone: the uncached path finds the session's next selection (or an empty one).
    if (rest === null) return getSelection(deps, handle);
    return spliced(handle.token, rest, loggedIn || undefined);
  };

  return Object.assign(answerOf, { keepChange });
}
