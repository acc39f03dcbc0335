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

describeWithEngines('redis session store: one key for the tokens of every replica', ['redis'], ({ url }) => {
  it('recognises a token another store on the same key prefix minted (another replica of the edge)', async () => {
    const keyPrefix = `${uniqueName('sessions_replicas')}:`;
    const [a, b] = await Promise.all([
      createSessionStore(url('redis'), { ttlSeconds: 60, keyPrefix }),
      createSessionStore(url('redis'), { ttlSeconds: 60, keyPrefix }),
    ]);
    try {
      expect(b.minted(a.mintToken('DK'))).toEqual({ tag: 'DK' });
      expect(a.minted(b.mintToken())).toEqual({ tag: '' });
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
