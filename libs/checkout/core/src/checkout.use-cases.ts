import type { AccountClient, CustomerDto } from '@commerce/account-contracts';
import type { CartClient } from '@commerce/cart-contracts';
import type { CatalogClient } from '@commerce/catalog-contracts';
import type { OrderClient } from '@commerce/order-contracts';
import type { PaymentClient } from '@commerce/payment-contracts';
import type { StoreView } from './envelope';
import type { CheckoutSession, SessionPort } from './session';
import type { LoginGuard } from './login-guard';

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
  view: StoreView;
  now?: () => Date;
}

/** The session of a request: the one its `API-Token` names, or a new one with a new token. */
export interface SessionHandle {
  token: string;
  session: CheckoutSession;
  isNew: boolean;
  /** The logged-in customer as last read or changed in this request (the envelope's `loggedIn`). */
  customer?: CustomerDto;
  /**
   * The version of the session's selection as read with the session (before anything of the selection was
   * read), for the rendered-answer cache (decision 48); only valid while `session.selectionId` is this one.
   */
  versionRead?: { selectionId: string; version: number };
}

/** What a token we issued looks like (32 random bytes, base64url); anything else is not looked up. */
const TOKEN_FORMAT = /^[A-Za-z0-9_-]{20,128}$/;

/**
 * The session of a token; an unknown, expired or malformed token gets a fresh anonymous session (never an
 * error), in the country the request comes from when known (`detectCountry`: asked only for a new session).
 */
export async function openSession(
  deps: CheckoutDeps,
  token: string | undefined,
  detectCountry?: string | null | (() => string | null),
): Promise<SessionHandle> {
  if (token && TOKEN_FORMAT.test(token)) {
    const { session, selectionVersion } = deps.sessions.getWithVersion
      ? await deps.sessions.getWithVersion(token)
      : { session: await deps.sessions.get(token), selectionVersion: null };
    const versionRead =
      session?.selectionId && selectionVersion !== null
        ? { versionRead: { selectionId: session.selectionId, version: selectionVersion } }
        : {};
    if (session && !session.customerId) return { token, session, isNew: false, ...versionRead };
    if (session?.customerId) {
      // A login ends when the customer is gone or a password reset raised the epoch since (decision 43).
      const customer = await deps.account.getCustomer(session.customerId);
      if (customer && customer.sessionEpoch === (session.sessionEpoch ?? 0))
        return { token, session, isNew: false, customer, ...versionRead };
      if (!deps.rotateTokenOnLogin) {
        // Logged out on the token the visitor holds, as `logout` does (decision 120).
        const handle = { token, session: anonymousOf(deps, session), isNew: false };
        await deps.sessions.set(token, handle.session);
        return handle;
      }
      await deps.sessions.delete(token);
    }
  }
  const fresh = {
    token: deps.sessions.newToken(),
    session: deps.view.initialSession(
      (deps.now ?? (() => new Date()))(),
      typeof detectCountry === 'function' ? detectCountry() : detectCountry,
    ),
    isNew: true,
  };
  await deps.sessions.set(fresh.token, fresh.session);
  return fresh;
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
  const session: CheckoutSession = options.reset ? anonymousOf(deps, handle.session) : handle.session;
  handle.token = deps.sessions.newToken();
  handle.session = session;
  handle.isNew = true;
  await deps.sessions.set(handle.token, session);
  await deps.sessions.delete(old);
  return handle;
}
