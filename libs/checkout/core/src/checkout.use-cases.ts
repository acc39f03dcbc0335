import type { AccountClient, CustomerDto } from '@commerce/account-contracts';
import type { CartClient } from '@commerce/cart-contracts';
import type { CatalogClient } from '@commerce/catalog-contracts';
import type { OrderClient } from '@commerce/order-contracts';
import type { PaymentClient } from '@commerce/payment-contracts';
import type { StoreView } from './store-view';
import type { CheckoutSession, SessionPort } from './session';
import type { LoginGuard } from './login-guard';
import { TooManySessionsError, type NewSessionLimit } from './session-limit';

export interface CheckoutDeps {
  sessions: SessionPort;
  catalog: CatalogClient;
  cart: CartClient;
  account: AccountClient;
  orders: OrderClient;
  payment: PaymentClient;
  /** How long `POST payment` holds the stock of a started payment (default 1200 s; the saga holds it). */
  paymentHoldSeconds?: number;
  loginGuard: LoginGuard;
  /**
   * `SESSION_ROTATE_ON_LOGIN`: register, login, password reset and logout move the session to a new token (the
   * old one stops carrying it), for storefronts that take the token of every answer. Off by default: the login is
   * attached to the token the visitor has (spec: Login state of a token; decision 120).
   */
  rotateTokenOnLogin?: boolean;
  /** The new sessions a client address may store (`SESSION_NEW_PER_ADDRESS`, decision 134); absent: no limit. */
  newSessions?: NewSessionLimit;
  view: StoreView;
  now?: () => Date;
}

/** The session of a request: the one its `API-Token` names, or a new one with a new token. */
export interface SessionHandle {
  token: string;
  session: CheckoutSession;
  /** The token was minted for this answer. */
  isNew: boolean;
  /**
   * The session is in the store under the token. A new visitor's is not until its first change (decision 134): a
   * request that changes nothing leaves nothing behind, and its token is recognised when it comes back.
   */
  stored: boolean;
  /** The new-session limit admitted the session's first store (`admitSession`). */
  admitted?: boolean;
  /** The new-session limit refused the session's first store when it was asked with the read: the seconds to wait. */
  refusedFor?: number;
  /** The client's address (the trusted-proxy rule's), for the new-session limit. */
  address?: string;
  /** The logged-in customer as last read or changed in this request (the envelope's `loggedIn`). */
  customer?: CustomerDto;
  /**
   * The version of the session's selection as read with the session (before anything of the selection was
   * read), for the rendered-answer cache (decision 48); only valid while `session.selectionId` is this one.
   */
  versionRead?: { selectionId: string; version: number };
}

/** What a token we issued looks like (base64url; 43 characters before decision 134, 64 since); anything else is not looked up. */
const TOKEN_FORMAT = /^[A-Za-z0-9_-]{20,128}$/;

/**
 * The session of a token. A token the store minted (for an answer that stored nothing) and has no session for is
 * a fresh anonymous session under that token; an unknown, expired or malformed token gets a fresh anonymous session
 * and a new token (never an error). A fresh session starts in the country the request comes from when known
 * (`detectCountry`: asked only for a fresh session) and is stored at its first change (`storeSession`).
 * `changing`: the request will store the session if it is fresh (`POST items`): the new-session limit is asked in
 * the read's round trip, counted only when the token has no stored session (decision 187), so the fresh session's
 * first store (under the minted token, or a new one) is admitted by it; `admitSession` then answers what it said.
 */
export async function openSession(
  deps: CheckoutDeps,
  token: string | undefined,
  detectCountry?: string | null | (() => string | null),
  address?: string,
  changing = false,
): Promise<SessionHandle> {
  const from = address === undefined ? {} : { address };
  /** What the limit told the read (decision 187): the wait (0: admitted), or null/undefined when it counted nothing. */
  let admission: number | null | undefined;
  const fresh = (country: string | null | undefined, minted?: string): SessionHandle => {
    const session = deps.view.initialSession((deps.now ?? (() => new Date()))(), country);
    const handle = {
      token: minted ?? deps.sessions.newToken(session.country),
      session,
      isNew: minted === undefined,
      stored: false,
      ...from,
    };
    return admission === 0 ? { ...handle, admitted: true } : admission ? { ...handle, refusedFor: admission } : handle;
  };
  if (token && TOKEN_FORMAT.test(token)) {
    const limit = changing && deps.newSessions?.admitUnlessStored ? deps.newSessions : undefined;
    // Both asked in this turn: the store sends them in one round trip (decision 187).
    const [{ session, selectionVersion }, admitted] = await Promise.all([
      deps.sessions.getWithVersion
        ? deps.sessions.getWithVersion(token)
        : deps.sessions.get(token).then((s) => ({ session: s, selectionVersion: null })),
      limit && address !== undefined ? limit.admitUnlessStored?.(address, token) : null,
    ]);
    admission = admitted;
    const versionRead =
      session?.selectionId && selectionVersion !== null
        ? { versionRead: { selectionId: session.selectionId, version: selectionVersion } }
        : {};
    if (session && !session.customerId) return { token, session, isNew: false, stored: true, ...from, ...versionRead };
    if (session?.customerId) {
      // A login ends when the customer is gone or a password reset raised the epoch since (decision 43).
      const customer = await deps.account.getCustomer(session.customerId);
      if (customer && customer.sessionEpoch === (session.sessionEpoch ?? 0))
        return { token, session, isNew: false, stored: true, customer, ...from, ...versionRead };
      if (!deps.rotateTokenOnLogin) {
        // Logged out on the token the visitor holds, as `logout` does (decision 120).
        const handle = { token, session: anonymousOf(deps, session), isNew: false, stored: true, ...from };
        await deps.sessions.set(token, handle.session);
        return handle;
      }
      await deps.sessions.delete(token);
    } else {
      // Minted for an answer that stored nothing: the fresh session it was, in the country it started in.
      const minted = deps.sessions.minted?.(token);
      if (minted) return fresh(minted.country, token);
    }
  }
  return fresh(typeof detectCountry === 'function' ? detectCountry() : detectCountry);
}

/**
 * A session's first store is a new session of the client's address, admitted by the new-session limit: over it,
 * 429 `{session}` with `Retry-After`. A use case that writes elsewhere before it stores the session (a new
 * selection in the cart) asks first, so that a refused visitor leaves nothing behind.
 */
export async function admitSession(deps: CheckoutDeps, handle: SessionHandle): Promise<void> {
  if (handle.stored || handle.admitted || !deps.newSessions || handle.address === undefined) return;
  if (handle.refusedFor !== undefined) throw new TooManySessionsError(handle.refusedFor);
  const wait = await deps.newSessions.admit(handle.address);
  if (wait > 0) throw new TooManySessionsError(wait);
  handle.admitted = true;
}

/** Stores the request's session under its token (its first store admitted by `admitSession`). */
export async function storeSession(deps: CheckoutDeps, handle: SessionHandle): Promise<void> {
  await admitSession(deps, handle);
  await deps.sessions.set(handle.token, handle.session);
  handle.stored = true;
}

/** An anonymous session in the same country, state and language: no login, no buyer pricing, no selection (logout). */
export const anonymousOf = (deps: CheckoutDeps, session: CheckoutSession): CheckoutSession => ({
  country: session.country,
  state: session.state,
  language: session.language,
  createdAt: (deps.now ?? (() => new Date()))().toISOString(),
});

/**
 * A new token for the session (login, register, password reset and logout call it with
 * `SESSION_ROTATE_ON_LOGIN`): the session moves to the new token and the old one stops working at once, so a
 * token seen before the change of identity cannot act after it. `reset` starts the new token from a fresh
 * anonymous session in the same country and language (logout: the selection is left behind).
 */
export async function renewSession(deps: CheckoutDeps, handle: SessionHandle, options: { reset?: boolean } = {}): Promise<SessionHandle> {
  const old = handle.token;
  const wasStored = handle.stored;
  handle.session = options.reset ? anonymousOf(deps, handle.session) : handle.session;
  handle.token = deps.sessions.newToken(handle.session.country);
  handle.isNew = true;
  // The logout of a session never stored leaves nothing to store (decision 134).
  if (wasStored || !options.reset) await storeSession(deps, handle);
  if (wasStored) await deps.sessions.delete(old);
  return handle;
}
