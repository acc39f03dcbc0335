import type { CartClient, SelectionDto } from '@commerce/cart-contracts';
import { DomainError } from '@commerce/shared-errors';
import { readFileSync } from 'node:fs';
import { parseStoreConfig } from '@commerce/shared-config';
import type { CatalogClient, ProductDto } from '@commerce/catalog-contracts';
import {
  StoreView,
  addItem,
  changeLine,
  getSelection,
  oneLineSelection,
  startPayment,
  swedishShopperAddress,
  type CheckoutDeps,
  type SessionHandle,
} from '@commerce/checkout-core';
import type { BeginCheckoutCommand, OrderClient } from '@commerce/order-contracts';
import { cachedSelectionAnswer, keptChange, RawJson, versionedCart } from './selection-answer-cache';
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
    // Made with a first change (decision 157): a new anonymous one has nothing to outdate; a customer's may be the saved one.
    await versioned.createSelection({ change: {} } as never);
    await versioned.createSelection({ change: {}, customerId: 'customer' } as never);
    expect(raised).toEqual(['a', 'b', 'c', 'anon', 'saved', 'saved', 'new']);
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
        stored: true,
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

  it('keeps a rendering whose products the catalog answered unchanged for as long as it keeps answering so (up to maxAge)', async () => {
    const { state, get, settle, tick } = setup();
    await get();
    // Checked every ttl in the background, found current each time: past 2 × ttl from its rendering, no cart read.
    for (let i = 0; i < 6; i++) {
      tick(1001);
      await get();
      await settle();
    }
    expect(state.catalogReads).toBeGreaterThanOrEqual(6);
    expect(state.cartReads).toBe(1);
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

describe('keptChange: a change answered is the rendering of the version it raised the selection to (decision 72)', () => {
  const store = parseStoreConfig(JSON.parse(readFileSync('infra/config/demo-store.json', 'utf8')));
  /** The edge's deps over these doubles (the catalog behind its cache) and the answers kept per selection version. */
  const keptChangeDeps = (sessions: unknown, catalog: CatalogClient, cart: CartClient) => {
    const deps = {
      sessions,
      catalog: cachingCatalogClient(catalog, { ttlMs: 1000 }),
      cart,
      view: new StoreView(store),
    } as unknown as CheckoutDeps;
    return { deps, answers: cachedSelectionAnswer(deps, { ttlMs: 1000 }) };
  };
  function setup() {
    /** `othersBetween`: raises by other changes (other requests, other replicas) between a request's read and its raise. */
    const state = { version: 4, quantity: 1, cartReads: 0, othersBetween: 0, fail: false };
    const sessions = {
      selectionVersion: async () => state.version,
      selectionChanged: async () => (state.version += 1 + state.othersBetween),
    };
    const cart = versionedCart(
      {
        getSelection: async () => {
          state.cartReads++;
          return oneLineSelection(state.quantity);
        },
        changeSelection: async (_id: string, change: { lines: Array<{ quantity: number }> }) => {
          if (state.fail) throw new DomainError('CART.REMOTE_ERROR', 'unavailable', { cart: 'unavailable (ETIMEDOUT)' });
          state.quantity = change.lines[0]!.quantity;
          return oneLineSelection(state.quantity);
        },
      } as unknown as CartClient,
      sessions,
    );
    const catalog = {
      getProduct: async (id: string) => ({ product: id, name: 'Jacket', items: [] }) as unknown as ProductDto,
    } as unknown as CatalogClient;
    const { deps, answers } = keptChangeDeps(sessions, catalog, cart);
    // As the session middleware opens it: the selection's version read with the session, before any cart call.
    const handle = (token = 'tok'): SessionHandle => ({
      token,
      isNew: false,
      stored: true,
      session: { selectionId: 'sel1', country: 'SE', state: null, language: 'sv', createdAt: token },
      versionRead: { selectionId: 'sel1', version: state.version },
    });
    /** The change's answer as the route sends it, and the envelope its use case made. */
    const change = async (quantity: number) => {
      const h = handle();
      let envelope: unknown;
      const sent = await keptChange(deps, answers, h, async (d) => (envelope = await changeLine(d, h, 'aa', 'set', String(quantity))));
      return { sent, envelope };
    };
    const set = async (quantity: number) => (await change(quantity)).sent;
    const get = async (token = 'tok') => ((await answers(handle(token))) as RawJson).json.toString();
    const uncached = async (token = 'tok') => JSON.stringify(await getSelection(deps, handle(token)));
    return { state, set, change, get, uncached, answers, handle, deps };
  }

  it("answers the next GET with the change's answer, byte for byte as an uncached GET, without reading the cart", async () => {
    const { state, change, get, uncached } = setup();
    const { sent, envelope } = await change(3);
    expect(state.version).toBe(5);
    // Kept: sent as the kept rendering's bytes around the token, the JSON of the envelope the use case made.
    expect(sent).toBeInstanceOf(RawJson);
    expect((sent as RawJson).json.toString()).toBe(JSON.stringify(envelope));
    expect(await get()).toBe(JSON.stringify(envelope));
    expect(await get('other')).toBe(await uncached('other'));
    expect(state.cartReads).toBe(1); // the uncached GET's own
  });

  it('keeps nothing when another change raised the version between the read and this raise', async () => {
    const { state, change, get } = setup();
    state.othersBetween = 1;
    const { sent, envelope } = await change(3);
    expect(sent).toBe(envelope); // not kept: the use case's answer as it was
    expect(JSON.parse(await get())).toMatchObject({ selection: { items: [{ quantity: 3 }] } });
    expect(state.cartReads).toBe(1);
  });

  it("keeps nothing for a failed change, nor a change's answer with more than the envelope", async () => {
    const { state, set, get, deps, answers, handle } = setup();
    state.fail = true;
    await expect(set(3)).rejects.toMatchObject({ kind: 'unavailable' });
    expect(state.version).toBe(5); // raised all the same
    state.fail = false;
    await get();
    expect(state.cartReads).toBe(1);
    // An answer that says more than the envelope (as a country change's `removedItems`) is not a GET's answer.
    const h = handle();
    const more = await keptChange(deps, answers, h, async (d) => ({ ...(await changeLine(d, h, 'aa', 'set', '5')), removedItems: [] }));
    expect(more).toMatchObject({ removedItems: [] });
    expect(state.version).toBe(6);
    expect(JSON.parse(await get())).toMatchObject({ selection: { items: [{ quantity: 5 }] } });
    expect(state.cartReads).toBe(2);
    // Nor one whose token is not its first member: its parts would not be its JSON.
    const h2 = handle();
    const reordered = await keptChange(deps, answers, h2, async (d) => {
      const { token, ...rest } = await changeLine(d, h2, 'aa', 'set', '6');
      return { ...rest, token };
    });
    expect(reordered).not.toBeInstanceOf(RawJson);
    expect(JSON.parse(await get())).toMatchObject({ selection: { items: [{ quantity: 6 }] } });
    expect(state.cartReads).toBe(3);
  });

  /** A visitor's first add: the session names no selection, so the add creates one (counters: the versions in the store). */
  function firstAdd(customerId?: string) {
    const counters = new Map<string, number>();
    const state = { cartReads: 0, creates: 0, changes: 0 };
    const sessions = {
      set: async () => undefined,
      selectionVersion: async (id: string) => counters.get(id) ?? 0,
      selectionChanged: async (id: string) => {
        counters.set(id, (counters.get(id) ?? 0) + 1);
        return counters.get(id)!;
      },
    };
    const cart = versionedCart(
      {
        // Made with its first change (decision 157) or empty.
        createSelection: async (command: { change?: unknown }) => {
          state.creates++;
          return command.change ? oneLineSelection(1) : { ...oneLineSelection(), items: [] };
        },
        getSelection: async () => {
          state.cartReads++;
          return oneLineSelection(1);
        },
        changeSelection: async () => {
          state.changes++;
          return oneLineSelection(1);
        },
      } as unknown as CartClient,
      sessions,
    );
    const product = { product: '1', name: 'Jacket', brandName: '', priceAsNumber: 100, priceBeforeDiscountAsNumber: 100 };
    const catalog = {
      getProduct: async () => ({ ...product, items: [{ item: '1-1', name: '1', sku: '', ean: '' }] }) as unknown as ProductDto,
    } as unknown as CatalogClient;
    const { deps, answers } = keptChangeDeps(sessions, catalog, cart);
    const customer = customerId ? { customer: { id: customerId, address: { email: 'ada@example.com' } } } : {};
    const handle = {
      token: 'tok',
      isNew: true,
      stored: false,
      session: { country: 'SE', state: null, language: 'sv', createdAt: 'tok', ...(customerId ? { customerId } : {}) },
      ...customer,
    } as unknown as SessionHandle;
    const add = () => keptChange(deps, answers, handle, (d) => addItem(d, handle, '1-1', {}));
    // The next request as the session middleware opens it: the stored session and its selection's version.
    const get = async () => {
      const next = { ...handle, isNew: false, stored: true };
      next.versionRead = { selectionId: handle.session.selectionId!, version: counters.get(handle.session.selectionId!) ?? 0 };
      return answers(next);
    };
    return { state, add, get, counters };
  }

  it("keeps a new anonymous selection's first change as version 0's rendering: the next GET reads no cart", async () => {
    const { state, add, get, counters } = firstAdd();
    const sent = await add();
    // One call: the selection made with the add (decision 157); nothing raised (nothing was rendered under its id).
    expect([state.creates, state.changes]).toEqual([1, 0]);
    expect(counters.get('sel1')).toBeUndefined();
    expect(sent).toBeInstanceOf(RawJson);
    expect(((await get()) as RawJson).json.toString()).toBe((sent as RawJson).json.toString());
    expect(state.cartReads).toBe(0);
  });

  it('keeps nothing of a logged-in first change: the cart may answer a saved selection another device changed', async () => {
    const { state, add, get } = firstAdd('c1');
    const sent = await add();
    // The saved selection is made (or found) empty and changed as any other.
    expect([state.creates, state.changes]).toEqual([1, 1]);
    expect(sent).not.toBeInstanceOf(RawJson);
    await get();
    expect(state.cartReads).toBe(1);
  });

  it("keeps a logged-in change's answer without `loggedIn`: sent with it, a GET splices its own", async () => {
    const { state, get, deps, answers, handle } = setup();
    const h = handle();
    const loggedIn = { email: 'ada@example.com', firstName: 'Ådä' };
    let envelope: unknown;
    const sent = await keptChange(deps, answers, h, async (d) => (envelope = { ...(await changeLine(d, h, 'aa', 'set', '2')), loggedIn }));
    expect((sent as RawJson).json.toString()).toBe(JSON.stringify(envelope));
    const { loggedIn: _loggedIn, ...withoutLogin } = envelope as Record<string, unknown>;
    // The session names no customer: the GET answers the kept rendering without `loggedIn`, no cart read.
    expect(await get()).toBe(JSON.stringify(withoutLogin));
    expect(state.cartReads).toBe(0);
  });
});

describe("POST payment charges the cart's selection, never the edge's rendering of it (decision 194, withdrawn)", () => {
  const store = parseStoreConfig(JSON.parse(readFileSync('infra/config/demo-store.json', 'utf8')));
  /** An edge on a session store and a cart; the cart's selection with the first method offered in SE; raises can be held. */
  function setup() {
    const state = { version: 4, quantity: 1, cartReads: 0 };
    let held: Promise<void> | undefined;
    const cartSelection = () => ({ ...oneLineSelection(state.quantity), paymentMethod: 'test-card' });
    const sessions = {
      selectionVersion: async () => state.version,
      selectionChanged: async () => {
        await held;
        return ++state.version;
      },
      set: async () => undefined,
    };
    const charged: BeginCheckoutCommand[] = [];
    const orders = {
      beginCheckout: async (command: BeginCheckoutCommand) => {
        charged.push(command);
        return { state: 'started', attemptId: command.attempt.attemptId, action: { action: 'redirect', url: 'https://psp.test/' } };
      },
    } as unknown as OrderClient;
    const cart = versionedCart(
      {
        getSelection: async () => (state.cartReads++, cartSelection()),
        changeSelection: async (_id: string, change: { lines: Array<{ quantity: number }> }) => {
          state.quantity = change.lines[0]!.quantity;
          return cartSelection();
        },
      } as unknown as CartClient,
      sessions,
    );
    const catalog = {
      getProduct: async (id: string) => ({ product: id, name: 'Jacket', items: [] }) as unknown as ProductDto,
      getItems: async (items: string[]) => items.map((item) => ({ item, external: { variation: 'V', size: 'S', brand: 'B' } })),
    } as unknown as CatalogClient;
    const deps = {
      sessions,
      catalog: cachingCatalogClient(catalog, { ttlMs: 1000 }),
      cart,
      orders,
      account: { getCustomer: async () => null },
      view: new StoreView(store),
    } as unknown as CheckoutDeps;
    const answers = cachedSelectionAnswer(deps, { ttlMs: 1000, maxAgeMs: 30_000 });
    /** As the session middleware opens it: the selection's version read with the session. */
    const handle = (): SessionHandle => ({
      token: 'tok',
      isNew: false,
      stored: true,
      session: { selectionId: 'sel1', country: 'SE', state: null, language: 'sv', createdAt: 'tok' },
      versionRead: { selectionId: 'sel1', version: state.version },
    });
    const change = (quantity: number) => {
      const h = handle();
      return keptChange(deps, answers, h, (d) => changeLine(d, h, 'aa', 'set', String(quantity)));
    };
    /** `POST payment` as its routes call it; answers the lines the saga was asked to charge. */
    const pay = async () => {
      await startPayment(deps, handle(), {
        termsAndConditions: true,
        address: swedishShopperAddress(),
        paymentReturnPage: 'https://s/ok',
        paymentFailedPage: 'https://s/no',
      });
      return charged.at(-1)!.lines;
    };
    const hold = () => {
      let release!: () => void;
      held = new Promise<void>((r) => (release = r));
      return release;
    };
    return { state, change, pay, hold };
  }

  it('charges the quantity a change committed at the cart while its version raise is still on its way', async () => {
    const { state, change, pay, hold } = setup();
    await change(3); // kept as the session's rendering at the version raised
    const release = hold();
    const changing = change(7); // committed at the cart; its raise waits
    while (state.quantity !== 7) await new Promise((r) => setImmediate(r));
    const reads = state.cartReads;
    // The version read with the session is still the rendering's: only the cart knows the quantity is 7.
    expect(await pay()).toEqual([{ item: '1-1', quantity: 7 }]);
    expect(state.cartReads - reads).toBe(1);
    release();
    await changing;
  });
});
