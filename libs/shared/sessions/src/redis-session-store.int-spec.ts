import { describeWithEngines, uniqueName } from '@commerce/shared-testing';
import { createSessionStore } from './create-session-store';
import { sessionStoreContract } from './testing/session-store.contract';
import { observeRedis } from './redis-instruments';
import { SessionStoreUnavailableError } from './session-store';

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

describeWithEngines('redis session store: one round trip a turn (decision 177)', ['redis'], ({ url }) => {
  it('sends the reads, writes and raises asked for in one turn as one command, in their order, each with its answer', async () => {
    const store = await createSessionStore(url('redis'), { ttlSeconds: 60, keyPrefix: `${uniqueName('sessions_turn')}:` });
    const sent: string[] = [];
    try {
      await store.set('known', { selectionId: 's1' });
      observeRedis((command) => sent.push(command));
      // Asked for from separate callbacks of one turn, as requests whose bytes and cart answers arrived together ask.
      const asked = await new Promise<Array<Promise<unknown>>>((resolve) => {
        const calls: Array<Promise<unknown>> = [];
        setImmediate(() => calls.push(store.getWithCounter('known', 'selectionId', 'selection:')));
        setImmediate(() => calls.push(store.raise('selection:s1')));
        setImmediate(() => calls.push(store.set('new', { country: 'SE' })));
        setImmediate(() => calls.push(store.getWithCounter('known', 'selectionId', 'selection:')));
        setImmediate(() => calls.push(store.get('new')));
        setImmediate(() => calls.push(store.raise('selection:s1')));
        setImmediate(() => resolve(calls));
      });
      expect(await Promise.all(asked)).toEqual([
        { session: { selectionId: 's1' }, counter: 0 },
        1,
        undefined,
        { session: { selectionId: 's1' }, counter: 1 },
        { country: 'SE' },
        2,
      ]);
      // One script for the six (a read, a raise and a write were three commands before).
      expect(sent).toEqual(['evalsha']);
    } finally {
      observeRedis(undefined);
      await store.close();
    }
  });
});

describeWithEngines('redis session store: a command Redis refuses fails alone (decision 177)', ['redis'], ({ url }) => {
  it('answers the turn’s other commands when one meets a key of the wrong type, and fails that one saying why', async () => {
    const Redis = (await import('ioredis')).default;
    const keyPrefix = `${uniqueName('sessions_refused')}:`;
    const store = await createSessionStore(url('redis'), { ttlSeconds: 60, keyPrefix });
    const client = new Redis(url('redis'));
    const sent: string[] = [];
    try {
      await store.set('known', { selectionId: 's1' });
      // A session key that is not a string: the session's GET meets WRONGTYPE.
      await client.rpush(`${keyPrefix}listed`, 'x');
      observeRedis((command) => sent.push(command));
      const asked = await new Promise<Array<Promise<unknown>>>((resolve) => {
        const calls: Array<Promise<unknown>> = [];
        setImmediate(() => calls.push(store.getWithCounter('known', 'selectionId', 'selection:')));
        setImmediate(() => calls.push(store.getWithCounter('listed', 'selectionId', 'selection:')));
        setImmediate(() => calls.push(store.raise('selection:s1')));
        setImmediate(() => calls.push(store.set('new', { country: 'SE' })));
        setImmediate(() => calls.push(store.windowCount!(`${keyPrefix}window`, 30)));
        setImmediate(() => resolve(calls));
      });
      const settled = await Promise.allSettled(asked);
      expect(sent).toEqual(['evalsha']);
      expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error).message))).toEqual([
        { session: { selectionId: 's1' }, counter: 0 },
        expect.stringMatching(/refused a session read \(GET: WRONGTYPE /),
        1,
        undefined,
        { count: 1, msLeft: expect.any(Number) },
      ]);
      expect((settled[1] as PromiseRejectedResult).reason).toBeInstanceOf(SessionStoreUnavailableError);
      observeRedis(undefined);
      // The commands after the refused one ran once each: the write is there, the counter was raised once.
      expect(await store.get('new')).toEqual({ country: 'SE' });
      expect(await store.counter('selection:s1')).toBe(1);
    } finally {
      observeRedis(undefined);
      client.disconnect();
      await store.close();
    }
  });
});

describeWithEngines('redis session store: a fixed window counted in the turn (decision 182)', ['redis'], ({ url }) => {
  it('counts as rate-limiter-flexible does on the same key, in the turn’s one script with the sessions’ reads', async () => {
    const { RateLimiterRedis } = await import('rate-limiter-flexible');
    const Redis = (await import('ioredis')).default;
    const store = await createSessionStore(url('redis'), { ttlSeconds: 60, keyPrefix: `${uniqueName('sessions_window')}:` });
    const client = new Redis(url('redis'));
    const prefix = uniqueName('window');
    const limiter = new RateLimiterRedis({ storeClient: client, keyPrefix: prefix, points: 100, duration: 30 });
    const sent: string[] = [];
    try {
      const windowCount = store.windowCount!.bind(store);
      expect(await windowCount(`${prefix}:1.2.3.4`, 30)).toEqual({ count: 1, msLeft: expect.any(Number) });
      // A replica still on rate-limiter-flexible counts on with the same key and window.
      expect((await limiter.consume('1.2.3.4')).consumedPoints).toBe(2);
      const third = await windowCount(`${prefix}:1.2.3.4`, 30);
      expect(third.count).toBe(3);
      expect(third.msLeft).toBeGreaterThan(25_000);
      expect(third.msLeft).toBeLessThanOrEqual(30_000);
      await store.set('t', { country: 'SE' });
      observeRedis((command) => sent.push(command));
      const [read, counted] = await Promise.all([store.get('t'), windowCount(`${prefix}:5.6.7.8`, 30)]);
      expect(read).toEqual({ country: 'SE' });
      expect(counted.count).toBe(1);
      expect(sent).toEqual(['evalsha']);
    } finally {
      observeRedis(undefined);
      client.disconnect();
      await store.close();
    }
  });
});

describeWithEngines('redis session store: a window counted unless the session is stored (decision 187)', ['redis'], ({ url }) => {
  it('counts with the token’s read in one script when the token has no session, and nothing once it has one', async () => {
    const store = await createSessionStore(url('redis'), { ttlSeconds: 60, keyPrefix: `${uniqueName('sessions_unless')}:` });
    const window = `${uniqueName('window')}:1.2.3.4`;
    const sent: string[] = [];
    try {
      const token = store.mintToken('SE');
      observeRedis((command) => sent.push(command));
      const [fresh, counted] = await Promise.all([store.get(token), store.windowCountUnlessStored!(window, 30, token)]);
      expect(fresh).toBeNull();
      expect(counted).toEqual({ count: 1, msLeft: expect.any(Number) });
      // One script (its text the first time this connection runs it).
      expect(sent).toEqual([expect.stringMatching(/^eval(sha)?$/)]);

      await store.set(token, { country: 'SE' });
      const [stored, notCounted] = await Promise.all([store.get(token), store.windowCountUnlessStored!(window, 30, token)]);
      expect(stored).toEqual({ country: 'SE' });
      expect(notCounted).toBeNull();
      // The window still holds the one count: the stored session's request counted nothing.
      expect((await store.windowCount!(window, 30)).count).toBe(2);
      // Another fresh token of the same address counts on in the same window.
      expect(await store.windowCountUnlessStored!(window, 30, store.mintToken())).toMatchObject({ count: 3 });
    } finally {
      observeRedis(undefined);
      await store.close();
    }
  });
});
