import { z } from 'zod';
import { env } from '@commerce/shared-config';
import { newSessionToken, type SessionStore } from '@commerce/shared-sessions';
import type { CheckoutSession, SessionPort } from '@commerce/checkout-core';

/** A selection's version counter is named by this and the selection's id. */
const SELECTION_COUNTER = 'selection:';

/** The checkout's session port on the shared session store (Redis or memory). */
export function checkoutSessions(store: SessionStore): SessionPort {
  return {
    get: (token) => store.get<CheckoutSession>(token),
    getWithVersion: async (token) => {
      const { session, counter } = await store.getWithCounter<CheckoutSession>(token, 'selectionId', SELECTION_COUNTER);
      return { session, selectionVersion: counter };
    },
    set: (token, session) => store.set(token, { ...session }),
    delete: (token) => store.delete(token),
    newToken: newSessionToken,
    selectionVersion: (id) => store.counter(SELECTION_COUNTER + id),
    selectionChanged: (id) => store.raise(SELECTION_COUNTER + id),
  };
}

/** The checkout sessions' variables, for the checkout-api and all-in-one config schemas. */
export const sessionEnv = () => ({
  /** Sliding lifetime of a checkout session token: every request it makes restarts it. */
  SESSION_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .default(30 * 24 * 3600),
  /**
   * `true`: register, login, password reset and logout move the session to a new token (decision 35's rotation),
   * for storefronts that take the token of every answer; off, the login is attached to the token (decision 120).
   */
  SESSION_ROTATE_ON_LOGIN: env.flag(false),
});
