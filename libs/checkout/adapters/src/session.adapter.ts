import { z } from 'zod';
import { env, boundedInt } from '@commerce/shared-config';
import type { SessionStore } from '@commerce/shared-sessions';
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
    // The token carries the country its fresh session starts in (decision 134): two letters, or none.
    newToken: (country) => store.mintToken(country && /^[A-Z]{2}$/.test(country) ? country : ''),
    minted: (token) => {
      const minted = store.minted(token);
      return minted && { country: minted.tag || null };
    },
    selectionVersion: (id) => store.counter(SELECTION_COUNTER + id),
    selectionChanged: (id) => store.raise(SELECTION_COUNTER + id),
  };
}

/** The checkout sessions' variables, for the checkout-api and all-in-one config schemas. */
export const sessionEnv = () => ({
  SESSION_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .default(30 * 24 * 3600)
    .describe(
      'Sliding lifetime of a checkout token (a request restarts it once it has lost a tenth of it, at most a minute: decision 57).',
    ),
  SESSION_ROTATE_ON_LOGIN: env
    .flag(false)
    .describe(
      "`true`: `register`, `login/{email}`, `password-reset` and `logout` answer a new token and the token sent stops carrying the session (for storefronts that take the token of every answer). Off, the login is attached to the token the visitor holds, as the spec's login states say (decision 120).",
    ),
  SESSION_NEW_PER_ADDRESS: z.coerce
    .number()
    .int()
    .min(0)
    .default(600)
    .describe(
      "New sessions one client address (the `LOGIN_TRUST_PROXY` rule) may store in `SESSION_NEW_WINDOW_SECONDS` (a fixed window: in the sessions' Redis when `REDIS_URL` is Redis, counted with the session store's commands on rate-limiter-flexible's key, decision 182; rate-limiter-flexible in memory otherwise); a request that changes nothing stores none, so only a visitor's first change counts. Over it that change is 429 `{session}` with `Retry-After`; reads go on. 0: no limit (decision 134).",
    ),
  SESSION_NEW_WINDOW_SECONDS: boundedInt(1, 86_400, 60).describe('The window of `SESSION_NEW_PER_ADDRESS`, in seconds (decision 134).'),
});
