import type { CartClient, SelectionDto } from '@commerce/cart-contracts';
import { DomainError } from '@commerce/shared-errors';
import { readFileSync } from 'node:fs';
import { parseStoreConfig } from '@commerce/shared-config';
import type { CatalogClient, ProductDto } from '@commerce/catalog-contracts';
import { StoreView, oneLineSelection, type CheckoutDeps } from '@commerce/checkout-core';
import { cachedSelectionAnswer, RawJson, versionedCart } from './selection-answer-cache';
import { cachingCatalogClient } from './product-cache';

const selection = (id: string) => ({ id }) as SelectionDto;

describe('versionedCart: every change the edge asks for raises the selection version', () => {
  function setup(fail = false) {
    const raised: string[] = [];
    const order: string[] = [];
    const answer = async (what: string, value: unknown) => {
      order.push(what);
      if (fail) throw new DomainError('CART.REMOTE_ERROR', 'unavailable', { cart: 'unavailable (ETIMEDOUT)' });
      return value;
    };
    const cart = {
      createSelection: async () => selection('new'),
      getSelection: async () => selection('s1'),
      savedSelection: async () => selection('saved'),
      addItem: (id: string) => answer(`add ${id}`, selection(id)),
      changeSelection: (id: string) => answer(`change ${id}`, selection(id)),
      closeSelection: (id: string) => answer(`close ${id}`, undefined),
      claimSelection: (_customer: string, anonymous: string | null) => answer(`claim ${anonymous}`, selection('saved')),
    } as unknown as CartClient;
    const versioned = versionedCart(cart, {
      selectionChanged: async (id) => {
        order.push(`raise ${id}`);
        raised.push(id);
      },
    });
    return { versioned, raised, order };
  }

  it('raises after the cart answered, for changes, adds, closes and both selections of a claim; reads raise nothing', async () => {
    const { versioned, raised, order } = setup();
    await versioned.changeSelection('a', {});
    await versioned.addItem('b', {} as never);
    await versioned.closeSelection('c');
    await versioned.claimSelection('customer', 'anon');
    await versioned.claimSelection('customer', null);
    await versioned.getSelection('a');
    await versioned.savedSelection('customer');
    await versioned.createSelection({} as never);
    expect(raised).toEqual(['a', 'b', 'c', 'anon', 'saved', 'saved']);
    expect(order.slice(0, 2)).toEqual(['change a', 'raise a']);
  });

  it('raises when the call fails too (the change may have been made before the answer was lost)', async () => {
    const { versioned, raised } = setup(true);
    await expect(versioned.changeSelection('a', {})).rejects.toMatchObject({ kind: 'unavailable' });
    await expect(versioned.claimSelection('customer', 'anon')).rejects.toMatchObject({ kind: 'unavailable' });
    expect(raised).toEqual(['a', 'anon']);
  });
});

describe('cachedSelectionAnswer: renderings per selection version, refreshed in the background', () => {
  const store = parseStoreConfig(JSON.parse(readFileSync('infra/config/demo-store.json', 'utf8')));
  function setup() {
    let clock = 1_000_000;
    const now = () => clock;
    const state = { version: 0, quantity: 1, productName: 'Jacket', cartReads: 0, catalogReads: 0 };
    const catalog = {
      getProduct: async (id: string) => {
        state.catalogReads++;
        return { product: id, name: state.productName, items: [] } as unknown as ProductDto;
      },
    } as unknown as CatalogClient;
    const deps = {
      sessions: { selectionVersion: async () => state.version },
      catalog: cachingCatalogClient(catalog, { ttlMs: 1000, now }),
      cart: {
        getSelection: async () => {
          state.cartReads++;
          return oneLineSelection(state.quantity);
        },
      },
      view: new StoreView(store),
    } as unknown as CheckoutDeps;
    const answer = cachedSelectionAnswer(deps, { ttlMs: 1000, maxAgeMs: 10_000, now, random: () => 0 });
    const get = async (token = 'tok') => {
      const body = (await answer({
        token,
        isNew: false,
        session: { selectionId: 'sel1', country: 'SE', state: null, language: 'sv', createdAt: token },
      })) as RawJson;
      expect(Buffer.isBuffer(body.json)).toBe(true);
      return JSON.parse(body.json.toString()) as { token: string; selection: SelectionDto; products: Array<{ name: string }> };
    };
    // Lets the background refresh (microtasks only: the fakes answer at once) finish.
    const settle = () => new Promise((r) => setImmediate(r));
    return { state, get, settle, tick: (ms: number) => (clock += ms) };
  }

  it('answers the rendering of the current version with the token spliced in, and renders again after a change', async () => {
    const { state, get } = setup();
    expect(await get('a')).toMatchObject({ token: 'a', selection: { items: [{ quantity: 1 }] } });
    expect(await get('b')).toMatchObject({ token: 'b', selection: { items: [{ quantity: 1 }] } });
    expect(state.cartReads).toBe(1);
    state.quantity = 2;
    expect((await get()).selection.items[0]!.quantity).toBe(1);
    state.version = 1;
    expect((await get()).selection.items[0]!.quantity).toBe(2);
    expect(state.cartReads).toBe(2);
  });

  it('shares one rendering between concurrent misses', async () => {
    const { state, get } = setup();
    await Promise.all([get(), get(), get()]);
    expect(state.cartReads).toBe(1);
  });

  it('once its products are ttl old, serves it while checking them in the background: unchanged, no cart read', async () => {
    const { state, get, settle, tick } = setup();
    await get();
    tick(1001);
    expect((await get()).products[0]!.name).toBe('Jacket');
    await settle();
    expect(state.catalogReads).toBe(2);
    expect(state.cartReads).toBe(1);
    // Checked again: current for another ttl.
    tick(900);
    await get();
    await settle();
    expect(state.catalogReads).toBe(2);
  });

  it('renders again when the catalog answers the product changed, serving the old one meanwhile', async () => {
    const { state, get, settle, tick } = setup();
    await get();
    state.productName = 'Coat';
    tick(1001);
    expect((await get()).products[0]!.name).toBe('Jacket');
    await settle();
    expect(state.cartReads).toBe(2);
    expect((await get()).products[0]!.name).toBe('Coat');
  });

  it('never serves a rendering whose products are 2 × ttl old, nor one older than maxAge', async () => {
    const { state, get, tick } = setup();
    await get();
    state.productName = 'Coat';
    tick(2000);
    expect((await get()).products[0]!.name).toBe('Coat');
    // Products unchanged for longer than maxAge: the cart is read again anyway.
    const reads = state.cartReads;
    for (let i = 0; i < 12; i++) {
      tick(1000);
      await get();
      await new Promise((r) => setImmediate(r));
    }
    expect(state.cartReads).toBeGreaterThan(reads);
  });
});
