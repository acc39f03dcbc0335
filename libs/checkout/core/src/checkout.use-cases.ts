import type { CartClient } from '@commerce/cart-contracts';
import type { CatalogClient } from '@commerce/catalog-contracts';
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
