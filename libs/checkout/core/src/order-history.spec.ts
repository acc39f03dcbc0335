import { readFileSync } from 'node:fs';
import { parseStoreConfig } from '@commerce/shared-config';
import type { SelectionDto } from '@commerce/cart-contracts';
import { itemIdParts, type ItemInfoDto } from '@commerce/catalog-contracts';
import { PlaceOrderCommandSchema, type OrderDto } from '@commerce/order-contracts';
import { StoreView } from './store-view';
import { externalIdsOf, orderDate, orderToHistoryEntry, placeOrderCommandOf } from './order-history';
import { selectionEnvelope } from './envelope';
import type { CheckoutSession } from './session';

const view = new StoreView(parseStoreConfig(JSON.parse(readFileSync('infra/config/demo-store.json', 'utf8'))));
const now = new Date('2026-11-22T10:15:30.123Z');

const line = (id: string, item: string, quantity: number, price: number, before = price) => ({
  line: id,
  item,
  ...itemIdParts(item),
  sku: `SKU-${item}`,
  ean: '',
  productName: `Product ${item}`,
  brandName: 'Acme',
  quantity,
  priceEachMinor: Math.round(price * 100),
  priceEachBeforeDiscountMinor: Math.round(before * 100),
});

/** The selection as the envelope shows it. */
const shown = (session: CheckoutSession, s: SelectionDto) => selectionEnvelope(view, 'token', session, s, [], now).selection;

const selection = (over: Partial<SelectionDto>): SelectionDto => ({
  id: 'sel-1',
  currency: 'SEK',
  paymentMethod: 'test-card',
  shippingMethod: 'standard',
  country: 'SE',
  state: null,
  language: 'sv',
  vouchers: ['WELCOME10'],
  paymentFields: {},
  items: [line('a1', '1-1', 2, 199.9, 249.9), line('a2', '2-1', 1, 50)],
  ...over,
});

const address = {
  email: 'ada@example.com',
  firstName: 'Ada',
  lastName: 'Lovelace',
  address1: 'Storgatan 1',
  address2: '',
  city: 'Malmö',
  state: '',
  zipCode: '211 34',
  country: 'SE',
  phoneNumber: '',
};

/** What the order service makes of a command: the snapshot plus its own fields. */
const placed = (session: CheckoutSession, s: SelectionDto): OrderDto => ({
  ...PlaceOrderCommandSchema.parse(placeOrderCommandOf(view, session, s, { paymentAttemptId: 'att-1', address }, now)),
  id: 'o-1',
  order: '1001',
  status: 'untouched',
  statusDescription: 'Pending',
  placedAt: now.toISOString(),
  shipments: [],
  cancelled: [],
  invoices: [],
  version: 1,
});

describe('an order in the checkout API', () => {
  it.each([
    ['Sweden, VAT included, a voucher', { country: 'SE', state: null, language: 'sv', createdAt: '', customerId: 'c1' }, {}],
    ['California, sales tax added', { country: 'US', state: 'CA', language: 'en', createdAt: '' }, { currency: 'USD', vouchers: [] }],
  ] as const)('shows the items, discounts and totals the visitor saw when paying (%s)', (_name, session, over) => {
    const s = selection(over as Partial<SelectionDto>);
    const seen = shown(session as CheckoutSession, s);
    const entry = orderToHistoryEntry(placed(session as CheckoutSession, s));
    expect(entry.totals).toEqual(seen.totals);
    expect(entry.discounts).toEqual(seen.discounts);
    expect(entry.vatExempt).toBe(seen.vatExempt);
    for (const [i, item] of entry.items.entries()) {
      const shown = seen.items[i]!;
      expect(item).toMatchObject({
        item: shown.item,
        line: shown.line,
        quantity: shown.quantity,
        priceEach: formatOf(shown.priceEachAsNumber, s.currency),
        priceEachAsNumber: shown.priceEachAsNumber,
        totalPriceAsNumber: shown.totalPriceAsNumber,
        priceEachBeforeDiscountAsNumber: shown.priceEachBeforeDiscountAsNumber,
        priceEachWithoutTax: shown.priceEachWithoutTax,
        anyDiscount: shown.anyDiscount,
        taxPercent: shown.taxPercent,
        storePickup: false,
      });
    }
    expect(entry.currencyFormat).toEqual({
      ...view.currencyFormat(s.currency),
      decimalDigits: String(view.currencyFormat(s.currency).decimalDigits),
    });
  });

  it('names the methods and the country, and dates the order in UTC to the second', () => {
    const entry = orderToHistoryEntry(placed({ country: 'SE', state: null, language: 'sv', createdAt: '' }, selection({})));
    expect(entry).toMatchObject({
      order: '1001',
      status: 'untouched',
      statusDescription: 'Pending',
      paymentMethod: 'test-card',
      paymentMethodName: 'Card (test provider)',
      shippingMethod: 'standard',
      shippingMethodName: 'Standard delivery',
      currency: 'SEK',
      date: '2026-11-22 10:15:30',
      giftMessage: null,
      shipments: [],
      address: { ...address, company: '', countryName: 'Sweden' },
      shippingAddress: { ...address, company: '', countryName: 'Sweden' },
    });
    expect(entry.discounts.vouchers).toEqual([expect.objectContaining({ voucher: 'WELCOME10', discountAsNumber: 44.98 })]);
    expect(orderDate('2026-01-02T03:04:05+02:00')).toBe('2026-01-02 01:04:05');
  });
});

describe("a B2B buyer's session (decision 46)", () => {
  const buyer: CheckoutSession = {
    country: 'SE',
    state: null,
    language: 'sv',
    createdAt: '',
    customerId: 'c1',
    buyer: { market: 'B2B', pricelist: 'PL-B2B', currency: 'EUR' },
  };

  it("prices in the buyer's market and pricelist and its currency; shipping and tax follow the country", () => {
    expect(view.priceContext(buyer)).toEqual({ market: 'B2B', pricelist: 'PL-B2B', language: 'sv' });
    expect(view.sessionCurrency(buyer)).toBe('EUR');
    const { buyer: _dropped, ...anonymous } = buyer;
    expect(view.priceContext(anonymous)).toEqual({ market: '1', pricelist: '1', language: 'sv' });
    expect(view.sessionCurrency(anonymous)).toBe('SEK');
    // Only a market: the pricelist and currency stay the country's.
    expect(view.priceContext({ ...anonymous, buyer: { market: 'B2B' } })).toEqual({ market: 'B2B', pricelist: '1', language: 'sv' });
    expect(view.sessionCurrency({ ...anonymous, buyer: { market: 'B2B' } })).toBe('SEK');
  });

  it("writes the buyer's market, pricelist and currency into POST payment's order draft", () => {
    const s = selection({ currency: 'EUR', vouchers: [] });
    const draft = placeOrderCommandOf(view, buyer, s, { paymentAttemptId: 'att-1', address }, now);
    expect(draft).toMatchObject({ market: 'B2B', pricelist: 'PL-B2B', currency: 'EUR', country: 'SE', customerId: 'c1' });
    expect(draft.currencyFormat).toMatchObject({ currency: 'EUR' });
    // The Swedish VAT is in the prices, as for everyone shipping to Sweden.
    expect(draft.lines[0]).toMatchObject({ taxPercent: 25 });
  });

  it("does not apply a voucher of another market: the buyer's market decides", () => {
    // SVERIGE15 is for market 1, the Swedish visitor's.
    const s = selection({ vouchers: ['SVERIGE15'] });
    const { buyer: _dropped, ...visitor } = buyer;
    expect(shown(visitor, s).discounts.vouchers).toEqual([expect.objectContaining({ voucher: 'SVERIGE15' })]);
    expect(shown({ ...visitor, buyer: { market: 'B2B' } }, s).discounts.vouchers).toEqual([]);
  });
});

const formatOf = (major: number, currency: string) => {
  const f = view.currencyFormat(currency);
  return `${f.prefix}${major.toFixed(f.decimalDigits).replace('.', f.decimalPoint)}${f.suffix}`;
};

describe("the ERP's ids of a selection's lines at payment (decisions 113, 145)", () => {
  const ids = (variation: string) => ({ product: 'P', variation, size: 'S', brand: 'B' });
  const catalog = () => {
    const asked: string[][] = [];
    return {
      asked,
      getItems: async (items: readonly string[]) => {
        asked.push([...items]);
        return items.filter((i) => i !== '9-1').map((item) => ({ item, external: ids(`catalog ${item}`) }) as ItemInfoDto);
      },
    };
  };

  it('takes the ids the lines kept from their add, without asking the catalog', async () => {
    const c = catalog();
    const kept = selection({
      items: [
        { ...line('a1', '1-1', 2, 10), external: ids('V-1') },
        { ...line('a2', '2-1', 1, 5), external: ids('V-2') },
      ],
    });
    expect(await externalIdsOf(c, kept)).toEqual(
      new Map([
        ['1-1', ids('V-1')],
        ['2-1', ids('V-2')],
      ]),
    );
    expect(c.asked).toEqual([]);
  });

  it('asks the catalog once for the lines without ids (added before the cart kept them), leaving out an item it no longer has', async () => {
    const c = catalog();
    const mixed = selection({
      items: [{ ...line('a1', '1-1', 2, 10), external: ids('V-1') }, line('a2', '2-1', 1, 5), line('a3', '9-1', 1, 5)],
    });
    expect(await externalIdsOf(c, mixed)).toEqual(
      new Map([
        ['1-1', ids('V-1')],
        ['2-1', ids('catalog 2-1')],
      ]),
    );
    expect(c.asked).toEqual([['2-1', '9-1']]);
  });
});
