import { newSessionToken, type SessionStore } from '@commerce/shared-sessions';
import type { CheckoutSession, SessionPort } from '@commerce/checkout-core';

/** The checkout's session port on the shared session store (Redis or memory). */
export function checkoutSessions(store: SessionStore): SessionPort {
  return {
    get: (token) => store.get<CheckoutSession>(token),
    set: (token, session) => store.set(token, { ...session }),
    delete: (token) => store.delete(token),
    newToken: newSessionToken,
    selectionVersion: (id) => store.counter(`selection:${id}`),
    selectionChanged: async (id) => void (await store.raise(`selection:${id}`)),
  };
}
