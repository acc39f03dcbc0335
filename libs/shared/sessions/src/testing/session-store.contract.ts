import type { SessionStore, SessionStoreOptions } from '../session-store';
import { newSessionToken } from '../session-store';

export interface ContractHarness {
  /** A new store; options are merged over `{ ttlSeconds }` of the harness. */
  create(options?: Partial<SessionStoreOptions>): Promise<SessionStore>;
  ttlSeconds: number;
  /** Lets `ms` pass: a fake clock for memory, a real (short) wait for Redis. */
  elapse(ms: number): Promise<void>;
  /** A key prefix no other test shares (Redis is shared between runs). */
  uniquePrefix(): string;
}

/**
 * One suite for every adapter of the session-store port (STYLE: one contract, two adapters),
 * so the embedded store cannot drift from Redis.
 */
export function sessionStoreContract(harness: () => ContractHarness): void {
  let h: ContractHarness;
  let store: SessionStore;
  const opened: SessionStore[] = [];
  const open = async (options?: Partial<SessionStoreOptions>) => {
    const s = await h.create({ keyPrefix: h.uniquePrefix(), ...options });
    opened.push(s);
    return s;
  };

  beforeEach(async () => {
    h = harness();
    store = await open();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
  });

  it('returns what was set', async () => {
    const token = newSessionToken();
    await store.set(token, { selection: 'abc', country: 'SE', items: [1, 2], login: { customer: 7 } });
    expect(await store.get(token)).toEqual({ selection: 'abc', country: 'SE', items: [1, 2], login: { customer: 7 } });
  });

  it('overwrites a session on a second set', async () => {
    const token = newSessionToken();
    await store.set(token, { language: 'en' });
    await store.set(token, { language: 'sv' });
    expect(await store.get(token)).toEqual({ language: 'sv' });
  });

  it('hands out copies, so a caller mutating a session does not change the store', async () => {
    const token = newSessionToken();
    const data = { n: 1 };
    await store.set(token, data);
    data.n = 2;
    const read = await store.get<{ n: number }>(token);
    expect(read).toEqual({ n: 1 });
    if (read) read.n = 3;
    expect(await store.get(token)).toEqual({ n: 1 });
  });

  it('answers null for an unknown token', async () => {
    expect(await store.get(newSessionToken())).toBeNull();
  });

  it('forgets a deleted session, and deleting an unknown token is fine', async () => {
    const token = newSessionToken();
    await store.set(token, { a: 1 });
    await store.delete(token);
    expect(await store.get(token)).toBeNull();
    await expect(store.delete(newSessionToken())).resolves.toBeUndefined();
  });

  it('expires a session once its TTL has passed', async () => {
    const token = newSessionToken();
    await store.set(token, { a: 1 });
    await h.elapse(h.ttlSeconds * 1000 + 300);
    expect(await store.get(token)).toBeNull();
  });

  it('slides the TTL: a read before expiry keeps the session for another full TTL', async () => {
    const token = newSessionToken();
    const ttlMs = h.ttlSeconds * 1000;
    await store.set(token, { a: 1 });
    await h.elapse(ttlMs * 0.6);
    expect(await store.get(token)).toEqual({ a: 1 });
    // Past the original expiry, within the slid one.
    await h.elapse(ttlMs * 0.6);
    expect(await store.get(token)).toEqual({ a: 1 });
    await h.elapse(ttlMs + 300);
    expect(await store.get(token)).toBeNull();
  });

  it('restarts the TTL on set', async () => {
    const token = newSessionToken();
    const ttlMs = h.ttlSeconds * 1000;
    await store.set(token, { a: 1 });
    await h.elapse(ttlMs * 0.6);
    await store.set(token, { a: 2 });
    await h.elapse(ttlMs * 0.6);
    expect(await store.get(token)).toEqual({ a: 2 });
  });

  it('keeps stores with different key prefixes apart', async () => {
    const other = await open();
    const token = newSessionToken();
    await store.set(token, { who: 'store' });
    expect(await other.get(token)).toBeNull();
    await other.set(token, { who: 'other' });
    expect(await store.get(token)).toEqual({ who: 'store' });
    await other.delete(token);
    expect(await store.get(token)).toEqual({ who: 'store' });
  });

  it('mints tokens it recognises with their tag for the TTL, without storing them (decision 134)', async () => {
    const token = store.mintToken('DE');
    expect(token).toMatch(/^[A-Za-z0-9_-]{64}$/);
    expect(store.mintToken('DE')).not.toBe(token);
    expect(store.minted(token)).toEqual({ tag: 'DE' });
    expect(store.minted(store.mintToken())).toEqual({ tag: '' });
    expect(await store.get(token)).toBeNull();
    await h.elapse(h.ttlSeconds * 1000 + 300);
    expect(store.minted(token)).toBeNull();
  });

  it('recognises no tampered token, no token of another shape, and none minted under another key prefix', async () => {
    const token = store.mintToken('SE');
    const flipped = (i: number) => token.slice(0, i) + (token[i] === 'A' ? 'B' : 'A') + token.slice(i + 1);
    for (const i of [0, 32, 41, 63]) expect(store.minted(flipped(i))).toBeNull();
    for (const other of [newSessionToken(), `${token}A`, token.slice(1), `${token.slice(0, 63)}=`]) expect(store.minted(other)).toBeNull();
    expect((await open()).minted(token)).toBeNull();
    expect(() => store.mintToken('SWE')).toThrow(/tag/);
  });

  it('counts: 0 before any raise, then one more per raise, concurrent raises included, per store', async () => {
    const other = await open();
    const name = `selection-${newSessionToken()}`;
    expect(await store.counter(name)).toBe(0);
    expect(await store.raise(name)).toBe(1);
    const raised = await Promise.all(Array.from({ length: 10 }, () => store.raise(name)));
    expect([...raised].sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(await store.counter(name)).toBe(11);
    expect(await other.counter(name)).toBe(0);
    // A counter is not a session: its name never reads as a token.
    expect(await store.get(name)).toBeNull();
  });

  it('raises several counters asked in one tick each by one, a counter named twice twice, each with its own answer', async () => {
    const [a, b, c] = [1, 2, 3].map(() => `selection-${newSessionToken()}`) as [string, string, string];
    expect(await store.raise(b)).toBe(1);
    const raised = await Promise.all([store.raise(a), store.raise(b), store.raise(a), store.raise(c), store.raise(b)]);
    expect(raised).toEqual([1, 2, 2, 1, 3]);
    expect(await Promise.all([a, b, c].map((n) => store.counter(n)))).toEqual([2, 3, 1]);
    // And the next tick's raises after them.
    expect(await Promise.all([store.raise(c), store.raise(a)])).toEqual([2, 3]);
  });

  it('expires a counter a TTL after its last raise, and a raise restarts the TTL', async () => {
    const name = `selection-${newSessionToken()}`;
    const ttlMs = h.ttlSeconds * 1000;
    await store.raise(name);
    await h.elapse(ttlMs * 0.6);
    await store.raise(name);
    await h.elapse(ttlMs * 0.6);
    expect(await store.counter(name)).toBe(2);
    await h.elapse(ttlMs + 300);
    expect(await store.counter(name)).toBe(0);
  });

  it('reads a session with the counter one of its fields names, in one call', async () => {
    const token = newSessionToken();
    const id = newSessionToken();
    expect(await store.getWithCounter(token, 'selectionId', 'selection:')).toEqual({ session: null, counter: null });
    await store.set(token, { country: 'SE' });
    expect(await store.getWithCounter(token, 'selectionId', 'selection:')).toEqual({ session: { country: 'SE' }, counter: null });
    await store.set(token, { country: 'SE', selectionId: id });
    expect(await store.getWithCounter(token, 'selectionId', 'selection:')).toEqual({
      session: { country: 'SE', selectionId: id },
      counter: 0,
    });
    await store.raise(`selection:${id}`);
    await store.raise(`selection:${id}`);
    expect(await store.getWithCounter(token, 'selectionId', 'selection:')).toEqual({
      session: { country: 'SE', selectionId: id },
      counter: 2,
    });
    // A field that is not a string names no counter.
    await store.set(token, { selectionId: 7 });
    expect((await store.getWithCounter(token, 'selectionId', 'selection:')).counter).toBeNull();
  });

  it('reads several sessions asked for in one turn each with its own answer, one token twice, an unknown one', async () => {
    const [a, b, unknown] = [1, 2, 3].map(() => newSessionToken()) as [string, string, string];
    const id = newSessionToken();
    await Promise.all([store.set(a, { selectionId: id }), store.set(b, { country: 'NO' })]);
    await store.raise(`selection:${id}`);
    // Asked for from separate callbacks of one turn, as requests whose bytes arrived together ask.
    const asked = await new Promise<Array<Promise<unknown>>>((resolve) => {
      const reads: Array<Promise<unknown>> = [];
      setImmediate(() => reads.push(store.getWithCounter(a, 'selectionId', 'selection:')));
      setImmediate(() => reads.push(store.get(b)));
      setImmediate(() => reads.push(store.getWithCounter(unknown, 'selectionId', 'selection:')));
      setImmediate(() => reads.push(store.getWithCounter(b, 'selectionId', 'selection:')));
      setImmediate(() => reads.push(store.getWithCounter(a, 'country', 'selection:')));
      setImmediate(() => resolve(reads));
    });
    expect(await Promise.all(asked)).toEqual([
      { session: { selectionId: id }, counter: 1 },
      { country: 'NO' },
      { session: null, counter: null },
      { session: { country: 'NO' }, counter: null },
      { session: { selectionId: id }, counter: null },
    ]);
  });

  it('keeps the order commands were asked in: a read asked before a write sees the session before it', async () => {
    const token = newSessionToken();
    await store.set(token, { country: 'SE' });
    const before = store.get(token);
    const written = store.set(token, { country: 'DK' });
    const after = store.get(token);
    const deleted = store.delete(token);
    const gone = store.get(token);
    await written;
    await deleted;
    expect(await before).toEqual({ country: 'SE' });
    expect(await after).toEqual({ country: 'DK' });
    expect(await gone).toBeNull();
  });

  it('slides the TTL on getWithCounter as on get', async () => {
    const token = newSessionToken();
    const ttlMs = h.ttlSeconds * 1000;
    await store.set(token, { a: 1 });
    await h.elapse(ttlMs * 0.6);
    expect((await store.getWithCounter(token, 'selectionId', 'selection:')).session).toEqual({ a: 1 });
    await h.elapse(ttlMs * 0.6);
    expect((await store.getWithCounter(token, 'selectionId', 'selection:')).session).toEqual({ a: 1 });
    await h.elapse(ttlMs + 300);
    expect((await store.getWithCounter(token, 'selectionId', 'selection:')).session).toBeNull();
  });

  it('answers ping while open', async () => {
    await expect(store.ping()).resolves.toBeUndefined();
  });

  it('closes idempotently, and refuses work afterwards', async () => {
    const s = await open();
    await s.close();
    await expect(s.close()).resolves.toBeUndefined();
    await expect(s.ping()).rejects.toMatchObject({ name: 'SessionStoreUnavailableError', kind: 'unavailable' });
    await expect(s.get(newSessionToken())).rejects.toThrow(/closed/);
  });
}
