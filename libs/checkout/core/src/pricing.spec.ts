import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseStoreConfig } from '@commerce/shared-config';
import type { SelectionDto } from '@commerce/cart-contracts';
import { StoreView } from './store-view';
import { priceSelection } from './pricing';
import { selectionEnvelope } from './envelope';
import type { CheckoutSession } from './session';

const view = new StoreView(parseStoreConfig(JSON.parse(readFileSync('infra/config/demo-store.json', 'utf8'))));
const now = new Date('2026-11-22T10:15:30Z');
const germany: CheckoutSession = { country: 'DE', state: null, language: 'de', createdAt: '' };

const selection = (minor: number[], over: Partial<SelectionDto> = {}): SelectionDto => ({
  id: 's',
  currency: 'EUR',
  paymentMethod: '',
  shippingMethod: '',
  country: 'DE',
  state: null,
  language: 'de',
  vouchers: [],
  paymentFields: {},
  items: minor.map((price, i) => ({
    line: `l${i}`,
    item: `${i + 1}-1`,
    product: String(i + 1),
    size: 'M',
    sku: '',
    ean: '',
    productName: '',
    brandName: '',
    quantity: 1,
    priceEachMinor: price,
    priceEachBeforeDiscountMinor: price,
  })),
  ...over,
});

describe('the pricing of a selection (docs/pricing.md)', () => {
  it('adds money in integer minor units, so 0.10 + 0.20 is 0.30 in the answer', () => {
    const answer = selectionEnvelope(view, 't', germany, selection([10, 20]), [], now).selection;
    expect(answer.totals).toMatchObject({ itemsTotalPrice: '€0.30', itemsTotalPriceAsNumber: 0.3 });
    expect(answer.items.map((i) => i.totalPriceAsNumber)).toEqual([0.1, 0.2]);
  });

  it('runs items, vouchers, shipping, handling and taxes in that order, every amount in minor units', () => {
    // 2 × 60.00 EUR to Germany with a percent voucher: the shipping threshold (100 EUR) is met after the discount.
    const s = selection([6000], { vouchers: ['WELCOME10'] });
    s.items[0]!.quantity = 2;
    const price = priceSelection(view, germany, s, now);
    const voucher = view.voucher('WELCOME10')!;
    const discount = Math.round((12000 * (voucher.percent ?? 0)) / 100);
    expect(price).toMatchObject({ itemsTotal: 12000, discount, shipping: 12000 - discount >= 10000 ? 0 : 595, handlingCost: 0 });
    expect(price.vouchers).toEqual([{ voucher: voucher.voucher, name: voucher.name, type: 'percent', discount }]);
    const gross = 12000 - discount + (price.shipping as number);
    expect(price.grandTotal).toBe(gross);
    expect(price.grandTotalTax).toBe(gross - Math.round((gross * 100) / 119));
    for (const amount of [price.itemsTotal, price.discount, price.grandTotal, price.grandTotalTax, price.lines[0]!.priceEachWithoutTax])
      expect(Number.isInteger(amount)).toBe(true);
  });

  it('prices the answer and the order alike: the envelope renders the same SelectionPrice', () => {
    const s = selection([1999, 4550], { vouchers: ['WELCOME10'] });
    const price = priceSelection(view, germany, s, now);
    const answer = selectionEnvelope(view, 't', germany, s, [], now).selection;
    expect(answer.totals.grandTotalPriceAsNumber).toBe(price.grandTotal / 100);
    expect(answer.discounts.discountAsNumber).toBe(price.discount / 100);
  });
});

describe('the pricing module in its library', () => {
  /** The cycles among a folder's modules through their relative imports (`from './x'`). */
  const cyclesIn = (dir: string) => {
    const files = readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts'));
    const imports = new Map(
      files.map((f) => [
        f,
        [...readFileSync(join(dir, f), 'utf8').matchAll(/from '\.\/([^']+)'/g)].map((m) => `${m[1]}.ts`).filter((t) => files.includes(t)),
      ]),
    );
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const walk = (file: string, path: string[]) => {
      state.set(file, 'open');
      for (const next of imports.get(file) ?? []) {
        if (state.get(next) === 'open') cycles.push([...path.slice(path.indexOf(next)), file, next].join(' -> '));
        else if (!state.has(next)) walk(next, [...path, file]);
      }
      state.set(file, 'done');
    };
    for (const f of files) if (!state.has(f)) walk(f, []);
    return cycles;
  };

  it('sits in no import circle: pricing, its rendering, the store view and the envelope import nothing that imports them back', () => {
    expect(cyclesIn('libs/checkout/core/src')).toEqual([]);
    expect(cyclesIn('libs/cart/core/src')).toEqual([]);
  });
});
