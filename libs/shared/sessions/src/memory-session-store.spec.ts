import net from 'node:net';
import { createSessionStore } from './create-session-store';
import { MemorySessionStore } from './memory-session-store';
import { newSessionToken } from './session-store';
import { sessionStoreContract } from './testing/session-store.contract';

describe('session store contract on memory', () => {
  let now = 1_000_000;
  let prefixes = 0;
  sessionStoreContract(() => ({
    ttlSeconds: 60,
    create: (options) => createSessionStore('memory', { ttlSeconds: 60, now: () => now, ...options }),
    elapse: async (ms) => {
      now += ms;
    },
    uniquePrefix: () => `test${++prefixes}:`,
  }));
});

describe('MemorySessionStore', () => {
  it('drops expired sessions on its sweep, without a read', async () => {
    let now = 0;
    const store = new MemorySessionStore({ ttlSeconds: 10, now: () => now });
    await store.set(newSessionToken(), { a: 1 });
    await store.set(newSessionToken(), { a: 2 });
    now += 5_000;
    await store.set(newSessionToken(), { a: 3 });
    now += 6_000;
    store.sweep();
    expect(store.size).toBe(1);
    await store.close();
  });

  it('sweeps on a timer that does not hold the process open', async () => {
    let now = 0;
    const store = new MemorySessionStore({ ttlSeconds: 1, now: () => now, sweepIntervalMs: 20 });
    await store.set(newSessionToken(), { a: 1 });
    now += 2_000;
    await new Promise((r) => setTimeout(r, 60));
    expect(store.size).toBe(0);
    await store.close();
  });

  it('refuses a TTL that is not a positive integer', () => {
    expect(() => new MemorySessionStore({ ttlSeconds: 0 })).toThrow(/ttlSeconds/);
  });
});

describe('createSessionStore', () => {
  it('refuses a url that is neither memory nor redis', async () => {
    await expect(createSessionStore('mysql://x', { ttlSeconds: 1 })).rejects.toMatchObject({ name: 'ConfigError' });
  });

  it('throws SessionStoreUnavailableError with one line when Redis cannot be reached', async () => {
    const started = Date.now();
    // Port 1 on loopback: nothing listens there, so the connection is refused at once.
    const attempt = createSessionStore('redis://:secret@127.0.0.1:1', { ttlSeconds: 1 });
    await expect(attempt).rejects.toMatchObject({
      name: 'SessionStoreUnavailableError',
      message: 'session store: cannot reach redis://:***@127.0.0.1:1 (ECONNREFUSED)',
    });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('gives up within a few seconds on a peer that accepts and never answers', async () => {
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => void sockets.add(socket));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const { port } = silent.address() as net.AddressInfo;
    const started = Date.now();
    try {
      await expect(createSessionStore(`redis://127.0.0.1:${port}`, { ttlSeconds: 1 })).rejects.toThrow(
        `session store: cannot reach redis://127.0.0.1:${port} (ETIMEDOUT)`,
      );
      expect(Date.now() - started).toBeLessThan(6_000);
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  }, 10_000);
});

describe('newSessionToken', () => {
  it('makes 32 random bytes in base64url', () => {
    const a = newSessionToken();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a, 'base64url')).toHaveLength(32);
    expect(newSessionToken()).not.toBe(a);
  });
});
