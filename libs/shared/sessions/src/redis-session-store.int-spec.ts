import { describeWithEngines, uniqueName } from '@commerce/shared-testing';
import { createSessionStore } from './create-session-store';
import { sessionStoreContract } from './testing/session-store.contract';

describeWithEngines('session store contract on redis', ['redis'], ({ url }) => {
  sessionStoreContract(() => ({
    // Redis expiry is real time: the shortest TTL it takes, and waits just past it.
    ttlSeconds: 1,
    create: async (options) => {
      const store = await createSessionStore(url('redis'), { ttlSeconds: 1, ...options });
      expect(store.kind).toBe('redis');
      return store;
    },
    elapse: (ms) => new Promise((r) => setTimeout(r, ms)),
    uniquePrefix: () => `${uniqueName('sessions_test')}:`,
  }));
});
