import { readFileSync } from 'node:fs';
import { parseStoreConfig } from '@commerce/shared-config';
import type { OrderClient } from '@commerce/order-contracts';
import type { PaymentClient } from '@commerce/payment-contracts';
import type { AccountClient } from '@commerce/account-contracts';
import type { CartClient } from '@commerce/cart-contracts';
import type { CatalogClient } from '@commerce/catalog-contracts';
import { StoreView } from './store-view';
import { openSession, renewSession, storeSession, type CheckoutDeps } from './checkout.use-cases';
import type { CheckoutSession } from './session';

const store = parseStoreConfig(JSON.parse(readFileSync('infra/config/demo-store.json', 'utf8')));

function deps(customers = new Map<string, { sessionEpoch: number }>()) {
  const sessions = new Map<string, CheckoutSession>();
  let n = 0;
  const d: CheckoutDeps = {
    sessions: {
      get: async (t) => sessions.get(t) ?? null,
      set: async (t, s) => void sessions.set(t, s),
      delete: async (t) => void sessions.delete(t),
      newToken: () => `token_${String(++n).padStart(24, '0')}`,
      selectionVersion: async () => 0,
      selectionChanged: async () => undefined,
    },
    catalog: {} as CatalogClient,
    cart: {} as CartClient,
    account: { getCustomer: async (id: string) => (customers.has(id) ? { id, ...customers.get(id) } : null) } as unknown as AccountClient,
    orders: {} as OrderClient,
    payment: {} as PaymentClient,
    loginGuard: { blockedFor: async () => 0, failed: async () => undefined },
    view: new StoreView(store),
  };
  return { d, sessions };
}

describe('session renewal', () => {
  it('moves the session to a new token and the old token stops working', async () => {
    const { d, sessions } = deps();
    const handle = await openSession(d, undefined);
    const old = handle.token;
    handle.session = { ...handle.session, selectionId: 'sel-1', country: 'DE' };
    await renewSession(d, handle);
    expect(handle.token).not.toBe(old);
    expect(sessions.has(old)).toBe(false);
    expect(sessions.get(handle.token)).toMatchObject({ selectionId: 'sel-1', country: 'DE' });
    const again = await openSession(d, old);
    expect(again.token).not.toBe(old);
    expect(again.session.selectionId).toBeUndefined();
  });

  it('with reset, keeps country and language but leaves the selection behind', async () => {
    const { d, sessions } = deps();
    const handle = await openSession(d, undefined);
    handle.session = { ...handle.session, selectionId: 'sel-1', country: 'US', state: 'CA', language: 'en' };
    await storeSession(d, handle);
    const old = handle.token;
    await renewSession(d, handle, { reset: true });
    expect([...sessions.keys()]).toEqual([handle.token]);
    expect(handle.token).not.toBe(old);
    expect(sessions.get(handle.token)).toMatchObject({ country: 'US', state: 'CA', language: 'en' });
    expect(sessions.get(handle.token)?.selectionId).toBeUndefined();
  });

  it('with reset, stores nothing for a session never stored (decision 134)', async () => {
    const { d, sessions } = deps();
    const handle = await openSession(d, undefined);
    await renewSession(d, handle, { reset: true });
    expect(handle.stored).toBe(false);
    expect(sessions.size).toBe(0);
  });
});

describe('a login ended elsewhere (a password reset raised the epoch, or the customer is gone)', () => {
  const loggedIn = (customerId: string): CheckoutSession => ({
    customerId,
    sessionEpoch: 1,
    selectionId: 'saved-1',
    buyer: { market: '2' },
    country: 'DE',
    state: null,
    language: 'de',
    createdAt: '2026-01-01T00:00:00.000Z',
  });
  const token = 'aLoggedInToken_0123456789';

  it('leaves the token anonymous in its country and language, without the saved selection', async () => {
    const { d, sessions } = deps(new Map([['c1', { sessionEpoch: 2 }]]));
    sessions.set(token, loggedIn('c1'));
    const handle = await openSession(d, token);
    expect(handle.token).toBe(token);
    expect(handle.customer).toBeUndefined();
    expect(handle.session).toEqual({ country: 'DE', state: null, language: 'de', createdAt: expect.any(String) });
    expect(sessions.get(token)).toEqual(handle.session);
  });

  it('keeps the login while the epoch is the same', async () => {
    const { d, sessions } = deps(new Map([['c1', { sessionEpoch: 1 }]]));
    sessions.set(token, loggedIn('c1'));
    expect(await openSession(d, token)).toMatchObject({ token, session: { customerId: 'c1', selectionId: 'saved-1' } });
  });

  it('with SESSION_ROTATE_ON_LOGIN, drops the token and answers a new one', async () => {
    const { d, sessions } = deps();
    sessions.set(token, loggedIn('gone'));
    const handle = await openSession({ ...d, rotateTokenOnLogin: true }, token);
    expect(handle.token).not.toBe(token);
    expect(sessions.has(token)).toBe(false);
    expect(handle.session.customerId).toBeUndefined();
  });
});

describe('a minted token’s first store admitted with its read (decision 187)', () => {
  const minted = 'aMintedTokenNotStored_0123456789';
  /** A limit that counts, per address, the admissions asked for the tokens it was given (unless stored). */
  function limited(max: number) {
    const { d, sessions } = deps();
    const asked: string[] = [];
    let counted = 0;
    const limit = {
      admit: async (address: string) => (asked.push(`admit ${address}`), ++counted > max ? 30 : 0),
      admitUnlessStored: async (address: string, token: string) => {
        asked.push(`unless ${address} ${token}`);
        if (sessions.has(token)) return null;
        return ++counted > max ? 30 : 0;
      },
    };
    const d2: CheckoutDeps = {
      ...d,
      sessions: { ...d.sessions, minted: (t) => (t === minted ? { country: 'SE' } : null) },
      newSessions: limit,
    };
    return { d: d2, sessions, asked };
  }

  it('asks the limit with the read, and storing the session asks nothing more', async () => {
    const { d, sessions, asked } = limited(5);
    const handle = await openSession(d, minted, null, '1.2.3.4', true);
    expect(handle).toMatchObject({ token: minted, stored: false, admitted: true, session: { country: 'SE' } });
    await storeSession(d, handle);
    expect(asked).toEqual([`unless 1.2.3.4 ${minted}`]);
    expect(sessions.has(minted)).toBe(true);
    // Stored: the next change's read counts nothing.
    expect(await openSession(d, minted, null, '1.2.3.4', true)).toMatchObject({ stored: true });
    expect(asked).toHaveLength(2);
  });

  it('over the limit, the store is refused (429) when it is made, with what the read was told', async () => {
    const { d, sessions, asked } = limited(0);
    const handle = await openSession(d, minted, null, '1.2.3.4', true);
    expect(handle.admitted).toBeUndefined();
    await expect(storeSession(d, handle)).rejects.toMatchObject({ code: 'CHECKOUT.TOO_MANY_SESSIONS', headers: { 'Retry-After': '30' } });
    expect(sessions.size).toBe(0);
    expect(asked).toHaveLength(1);
  });

  it('a token the store did not mint: the new token’s session is the one admitted with the read', async () => {
    const { d, sessions, asked } = limited(5);
    const other = await openSession(d, 'someOtherTokenOfOurs_0123456789', null, '1.2.3.4', true);
    expect(other).toMatchObject({ isNew: true, admitted: true });
    await storeSession(d, other);
    expect(asked).toEqual(['unless 1.2.3.4 someOtherTokenOfOurs_0123456789']);
    expect(sessions.has(other.token)).toBe(true);
  });

  it('a request that changes nothing, or comes without a token, is admitted at its store as before', async () => {
    const { d, asked } = limited(5);
    const reading = await openSession(d, minted, null, '1.2.3.4');
    const tokenless = await openSession(d, undefined, null, '1.2.3.4', true);
    expect(asked).toEqual([]);
    await storeSession(d, reading);
    await storeSession(d, tokenless);
    expect(asked).toEqual(['admit 1.2.3.4', 'admit 1.2.3.4']);
  });
});
