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
