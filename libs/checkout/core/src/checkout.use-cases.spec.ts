import { readFileSync } from 'node:fs';
import { parseStoreConfig } from '@commerce/shared-config';
import type { AddItemCommand, CartClient, SelectionDto } from '@commerce/cart-contracts';
import type { OrderClient } from '@commerce/order-contracts';
import type { PaymentClient } from '@commerce/payment-contracts';
import type { AccountClient } from '@commerce/account-contracts';
import { noteItemExternalIds, type CatalogClient, type ItemInfoDto, type ProductDto } from '@commerce/catalog-contracts';
import { DomainError } from '@commerce/shared-errors';
import { StoreView } from './store-view';
import { openSession, type CheckoutDeps } from './checkout.use-cases';
import { resolveUri, searchProducts } from './product.use-cases';
import { RawJson } from './raw-json';
import { addItem, getSelection } from './selection.use-cases';
import { startPayment } from './payment.use-cases';
import type { CheckoutSession } from './session';

const store = parseStoreConfig(JSON.parse(readFileSync('infra/config/demo-store.json', 'utf8')));

const jacket: ItemInfoDto = {
  item: '1-2',
  product: '1',
  size: '2',
  sku: 'J-M',
  ean: '1',
  productName: 'Jacket',
  brandName: 'Brand',
  sizeName: 'M',
  external: { product: 'P1', variation: 'P1-V1', size: 'SZ-M', brand: 'BR' },
  priceAsNumber: 100,
  stock: 3,
};

function fakes() {
  const sessions = new Map<string, CheckoutSession>();
  const selections = new Map<string, SelectionDto>();
  const catalogCalls: unknown[] = [];
  let tokens = 0;
  const catalog: CatalogClient = {
    getItem: async (id, context) => (catalogCalls.push(context), id === jacket.item ? jacket : null),
    getItems: async (ids, context) => (catalogCalls.push(context), ids.includes(jacket.item) ? [jacket] : []),
    getProduct: async (id, context) => {
      catalogCalls.push(context);
      if (id !== jacket.product) return null;
      const item = {
        item: jacket.item,
        itemTableX: 0,
        itemTableY: 0,
        name: 'M',
        ean: jacket.ean,
        sku: jacket.sku,
        stock: 'yes',
        inStock: true,
      };
      const product = {
        product: jacket.product,
        name: jacket.productName,
        brandName: jacket.brandName,
        priceAsNumber: jacket.priceAsNumber,
        priceBeforeDiscountAsNumber: 0,
        itemQuantityMinimum: 1,
        itemQuantityMultipleOf: 1,
        items: [item],
      } as unknown as ProductDto;
      return noteItemExternalIds(product, [[jacket.item, jacket.external]]);
    },
    listCategories: async () => [],
    resolveUri: async () => null,
    getPricelist: async () => null,
    searchProducts: async (query, context) => (catalogCalls.push({ query, context }), { products: [], productCount: 0, filter: [] }),
  };
  const cart: CartClient = {
    createSelection: async (c) => {
      const s: SelectionDto = {
        id: `sel${selections.size + 1}`,
        currency: c.currency,
        paymentMethod: '',
        shippingMethod: '',
        vouchers: [],
        paymentFields: {},
        country: c.country,
        state: null,
        language: c.language,
        items: [],
      };
      selections.set(s.id, s);
      // Made with its first change (decision 157), as the cart makes it.
      return c.change ? cart.changeSelection(s.id, c.change) : s;
    },
    getSelection: async (id) => selections.get(id) ?? null,
    addItem: async (id, c: AddItemCommand) => {
      const s = selections.get(id)!;
      s.items.push({
        line: 'l',
        item: c.item,
        product: c.product,
        size: c.size,
        sku: c.sku,
        ean: c.ean,
        productName: c.productName,
        brandName: c.brandName,
        quantity: c.quantity,
        priceEachMinor: c.priceEachMinor,
        priceEachBeforeDiscountMinor: c.priceEachMinor,
        ...(c.external ? { external: c.external } : {}),
      });
      return s;
    },
    changeSelection: async (id, change) => {
      for (const op of change.lines ?? []) if (op.op === 'addItem') await cart.addItem(id, { ...op.item, quantity: op.quantity });
      return selections.get(id)!;
    },
    savedSelection: async () => null,
    closeSelection: async () => undefined,
    claimSelection: async () => null,
  };
  const deps: CheckoutDeps = {
    sessions: {
      get: async (t) => sessions.get(t) ?? null,
      set: async (t, s) => void sessions.set(t, s),
      delete: async (t) => void sessions.delete(t),
      newToken: () => `token${++tokens}`,
      selectionVersion: async () => 0,
      selectionChanged: async () => undefined,
    },
    catalog,
    cart,
    account: {} as AccountClient,
    orders: {} as OrderClient,
    payment: {} as PaymentClient,
    loginGuard: { blockedFor: async () => 0, failed: async () => undefined },
    view: new StoreView(store),
  };
  return { deps, sessions, selections, catalogCalls };
}

describe('checkout use cases', () => {
  it('when no token is sent, makes a new session in the default country, stored at its first change (decision 134)', async () => {
    const { deps, sessions } = fakes();
    const handle = await openSession(deps, undefined);
    expect(handle).toMatchObject({ token: 'token1', isNew: true, stored: false, session: { country: 'SE', language: 'sv' } });
    await getSelection(deps, handle);
    expect(sessions.size).toBe(0);
    await addItem(deps, handle, '1-2', undefined);
    expect(sessions.get('token1')).toEqual(handle.session);
    expect(handle.stored).toBe(true);
  });

  it('keeps a token the store minted and holds no session for, as the fresh session of its country, not yet stored', async () => {
    const { deps, sessions } = fakes();
    const mintedIn = (t: string) => (t === 'mintedTokenOfTheRightShape_1' ? { country: 'DE' } : null);
    const minted = { ...deps, sessions: { ...deps.sessions, minted: mintedIn } };
    expect(await openSession(minted, 'mintedTokenOfTheRightShape_1', 'US')).toMatchObject({
      token: 'mintedTokenOfTheRightShape_1',
      isNew: false,
      stored: false,
      session: { country: 'DE' },
    });
    expect((await openSession(minted, 'forgedTokenOfTheRightShape_1')).token).toBe('token1');
    expect(sessions.size).toBe(0);
  });

  it('admits the first store of a session by the limit of its address: over it 429 with Retry-After, nothing stored', async () => {
    const { deps, sessions, selections } = fakes();
    const asked: string[] = [];
    const limited = { ...deps, newSessions: { admit: async (a: string) => (asked.push(a), asked.length > 1 ? 42 : 0) } };
    const first = await openSession(limited, undefined, null, '192.0.2.1');
    await addItem(limited, first, '1-2', undefined);
    await addItem(limited, first, '1-2', undefined);
    const second = await openSession(limited, undefined, null, '192.0.2.1');
    await expect(addItem(limited, second, '1-2', undefined)).rejects.toMatchObject({
      kind: 'too_many_requests',
      fields: { session: 'too many new sessions from this address, try again later' },
      headers: { 'Retry-After': '42' },
    });
    expect(asked).toEqual(['192.0.2.1', '192.0.2.1']);
    expect([...sessions.keys()]).toEqual([first.token]);
    expect(second.stored).toBe(false);
    expect(selections.size).toBe(1);
  });

  it('when an unknown token is sent, answers with a new token instead', async () => {
    const { deps } = fakes();
    const handle = await openSession(deps, 'forgedTokenOfTheRightShape_1234');
    expect(handle.token).toBe('token1');
  });

  it('keeps the session of a token it issued', async () => {
    const { deps, sessions } = fakes();
    sessions.set('aValidLookingToken_0123456789', { country: 'DE', state: null, language: 'de', createdAt: '2026-01-01T00:00:00.000Z' });
    const handle = await openSession(deps, 'aValidLookingToken_0123456789');
    expect(handle).toMatchObject({ token: 'aValidLookingToken_0123456789', isNew: false, session: { country: 'DE' } });
  });

  it.each(['short', 'has spaces in it and is long enough', 'x'.repeat(129), 'ümlaut-token-that-is-long-enough'])(
    'does not look up a token that is not of the issued shape (%s)',
    async (token) => {
      const { deps, sessions } = fakes();
      sessions.set(token, { country: 'DE', state: null, language: 'de', createdAt: '2026-01-01T00:00:00.000Z' });
      expect((await openSession(deps, token)).isNew).toBe(true);
    },
  );

  it('shows an empty selection in the market currency without creating one in the cart', async () => {
    const { deps, selections } = fakes();
    const envelope = await getSelection(deps, await openSession(deps, undefined));
    expect(envelope.selection).toMatchObject({ currency: 'SEK', items: [], paymentMethod: '' });
    expect(envelope.selection).not.toHaveProperty('id');
    expect(envelope.location).toEqual({
      country: 'SE',
      name: 'Sweden',
      state: null,
      stateName: '',
      eu: true,
      shipTo: true,
      language: 'sv',
    });
    expect(envelope.languages.map((l) => l.name)).toEqual(['Deutsch', 'English', 'Svenska']);
    expect(envelope.countries.map((c) => c.country)).not.toContain('NO'); // not shipped to
    expect(envelope.paymentMethods.map((m) => m.paymentMethod)).toEqual(['test-card', 'test-card-form', 'test-embedded', 'test-invoice']);
    expect(selections.size).toBe(0);
  });

  it('creates the selection on the first item and reuses it for the next', async () => {
    const { deps, selections, sessions } = fakes();
    const handle = await openSession(deps, undefined);
    await addItem(deps, handle, '1-2', undefined);
    const envelope = await addItem(deps, handle, '1-2', { quantity: 2 });
    expect(selections.size).toBe(1);
    expect(sessions.get(handle.token)?.selectionId).toBe('sel1');
    expect(envelope.selection.items.map((i) => i.quantity)).toEqual([1, 2]);
  });

  it("keeps the ERP's ids the catalog's product carried on the cart's line, and shows them nowhere (issue 28)", async () => {
    const { deps, selections } = fakes();
    const handle = await openSession(deps, undefined);
    const envelope = await addItem(deps, handle, '1-2', undefined);
    expect(selections.get('sel1')?.items[0]?.external).toEqual(jacket.external);
    expect(JSON.stringify(envelope)).not.toContain(jacket.external.variation);
  });

  it('POST payment with an address in another market moves the selection there and goes on with what the change answered: one cart read (issue 28)', async () => {
    const { deps, sessions } = fakes();
    const handle = await openSession(deps, undefined);
    await addItem(deps, handle, '1-2', undefined);
    const asked: string[] = [];
    const counted = {
      ...deps,
      cart: {
        ...deps.cart,
        getSelection: (id: string) => (asked.push('read'), deps.cart.getSelection(id)),
        changeSelection: (id: string, change: Parameters<CartClient['changeSelection']>[1]) => (
          asked.push(`change ${Object.keys(change.set ?? {}).join(',')}`),
          deps.cart.changeSelection(id, change)
        ),
      },
      orders: {
        beginCheckout: async (c) => ({
          state: 'started',
          attemptId: c.attempt.attemptId,
          action: { action: 'redirect', url: 'https://psp.test/' },
        }),
      } as OrderClient,
    } satisfies CheckoutDeps;
    const address = {
      email: 'a@example.com',
      firstName: 'A',
      lastName: 'B',
      address1: 'Weg 1',
      city: 'Berlin',
      zipCode: '10115',
      country: 'DE',
    };
    const answer = await startPayment(counted, handle, {
      termsAndConditions: true,
      address,
      paymentReturnPage: 'https://s/ok',
      paymentFailedPage: 'https://s/no',
    });
    expect(answer).toMatchObject({ action: 'redirect' });
    expect(sessions.get(handle.token)).toMatchObject({ country: 'DE' });
    // The read of the selection, its move to DE (which answers it), the payment method set: no read after a change.
    expect(asked).toEqual(['read', 'change country,state,language,currency', 'change paymentMethod']);
  });

  it('prices in the market and pricelist of the session country', async () => {
    const { deps, catalogCalls } = fakes();
    await addItem(deps, await openSession(deps, undefined), '1-2', {});
    expect(catalogCalls[0]).toEqual({ market: '1', pricelist: '1', language: 'sv' });
  });

  it.each(['9-9', 'abc', '1-2-3', '-1'])('when item %s does not exist, fails with errors.item', async (id) => {
    const { deps } = fakes();
    await expect(addItem(deps, await openSession(deps, undefined), id, {})).rejects.toMatchObject({
      kind: 'not_found',
      fields: { item: 'product item not found' },
    });
  });

  it.each([{ quantity: 0 }, { quantity: 1.5 }, { quantity: 'two' }, { other: 1 }])(
    'rejects the body %j with one error per field',
    async (body) => {
      const { deps } = fakes();
      const error = await addItem(deps, await openSession(deps, undefined), '1-2', body).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DomainError);
      expect((error as DomainError).kind).toBe('invalid');
    },
  );

  it('passes a valid product query on and rejects a malformed one naming the field', async () => {
    const { deps, catalogCalls } = fakes();
    const handle = await openSession(deps, undefined);
    const list = await searchProducts(deps, handle, { search: 'jacket', limit: 5 });
    expect(list).toEqual({ token: handle.token, products: [], productCount: 0, filter: [] });
    expect(catalogCalls[0]).toMatchObject({ query: { search: 'jacket', limit: 5 } });
    await expect(searchProducts(deps, handle, { limit: -1 })).rejects.toMatchObject({ fields: { limit: expect.any(String) } });
  });

  it('passes a catalog answer that comes as JSON text on inside the envelope, unparsed (decision 58)', async () => {
    const { deps } = fakes();
    const handle = await openSession(deps, undefined);
    const answer = '{"products":[{"product":"7","name":"Café \\"Jacket\\""}],"productCount":1,"filter":[]}';
    const calls: unknown[] = [];
    const catalog = {
      ...deps.catalog,
      searchProductsJson: async (query: unknown) => (calls.push(query), Buffer.from(answer)),
      resolveUriJson: async (query: { uri: string }) => (query.uri === 'women' ? Buffer.from('{"found":"category","products":[]}') : null),
    };
    const listed = await searchProducts({ ...deps, catalog }, handle, { search: 'jacket' });
    expect(listed).toBeInstanceOf(RawJson);
    expect(JSON.parse((listed as RawJson).json.toString())).toEqual({ token: handle.token, ...JSON.parse(answer) });
    expect(calls).toEqual([{ search: 'jacket' }]);
    const found = (await resolveUri({ ...deps, catalog }, handle, { uri: 'women', for: ['category'] })) as RawJson;
    expect(JSON.parse(found.json.toString())).toEqual({ token: handle.token, found: 'category', products: [] });
    await expect(resolveUri({ ...deps, catalog }, handle, { uri: 'nowhere', for: ['category'] })).rejects.toMatchObject({
      fields: { uri: 'not found' },
    });
    await expect(searchProducts({ ...deps, catalog }, handle, { limit: -1 })).rejects.toMatchObject({
      fields: { limit: expect.any(String) },
    });
  });
});
