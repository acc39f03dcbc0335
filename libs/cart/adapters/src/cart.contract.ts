import { readFileSync } from 'node:fs';
import { currencyFormats, parseStoreConfig } from '@commerce/shared-config';
import type { Db } from '@commerce/shared-db';
import type { AddItemCommand } from '@commerce/cart-contracts';
import { buildCartService, type CartService } from './cart.service';

const store = parseStoreConfig(JSON.parse(readFileSync('infra/config/demo-store.json', 'utf8')));

const item = (id: string, price: number, quantity = 1): AddItemCommand => ({
  item: id,
  product: id.split('-')[0]!,
  size: id.split('-')[1]!,
  sku: `SKU-${id}`,
  ean: '',
  productName: `Product ${id}`,
  brandName: 'Brand',
  priceEachAsNumber: price,
  quantity,
});

/** The cart's behaviour through its client, run on PGlite (unit) and on Postgres (int). */
export function cartContract(name: string, db: () => Promise<Db>) {
  describe(`cart service on ${name}`, () => {
    let cart: CartService;

    beforeAll(async () => {
      cart = await buildCartService({ db: await db(), currencyFormat: currencyFormats(store) });
    }, 60_000);

    it('creates an empty selection in the given currency', async () => {
      const created = await cart.client.createSelection({ currency: 'EUR', country: 'DE', language: 'de' });
      expect(await cart.client.getSelection(created.id)).toMatchObject({
        id: created.id,
        currency: 'EUR',
        country: 'DE',
        items: [],
        totals: { itemsTotalPrice: '€0.00', totalQuantity: 0 },
      });
    });

    it('answers null for a selection that does not exist', async () => {
      expect(await cart.client.getSelection('00000000-0000-4000-8000-000000000000')).toBeNull();
    });

    it('adds up the quantity of one item on one line, and keeps lines in the order they were added', async () => {
      const { id } = await cart.client.createSelection({ currency: 'SEK', country: 'SE', language: 'sv' });
      await cart.client.addItem(id, item('1-1', 100));
      await cart.client.addItem(id, item('2-1', 50));
      const after = await cart.client.addItem(id, item('1-1', 100, 2));
      expect(after.items.map((i) => [i.item, i.quantity])).toEqual([
        ['1-1', 3],
        ['2-1', 1],
      ]);
      expect(after.items[0]).toMatchObject({ priceEach: '100.00 SEK', totalPrice: '300.00 SEK', totalPriceAsNumber: 300 });
      expect(after.totals).toMatchObject({ itemsTotalPrice: '350.00 SEK', itemsTotalPriceAsNumber: 350, totalQuantity: 4 });
    });

    it('adds money in minor units, so 0.10 + 0.20 is 0.30', async () => {
      const { id } = await cart.client.createSelection({ currency: 'EUR', country: 'DE', language: 'de' });
      await cart.client.addItem(id, item('3-1', 0.1));
      const after = await cart.client.addItem(id, item('4-1', 0.2));
      expect(after.totals.itemsTotalPriceAsNumber).toBe(0.3);
      expect(after.totals.itemsTotalPrice).toBe('€0.30');
    });

    it('loses no quantity when the same item is added concurrently', async () => {
      const { id } = await cart.client.createSelection({ currency: 'SEK', country: 'SE', language: 'sv' });
      await Promise.all(Array.from({ length: 10 }, () => cart.client.addItem(id, item('5-1', 10))));
      const selection = await cart.client.getSelection(id);
      expect(selection!.items).toHaveLength(1);
      expect(selection!.items[0]!.quantity).toBe(10);
    });

    it.each([0, -1, 1.5, 10_001])('refuses quantity %p and writes nothing', async (quantity) => {
      const { id } = await cart.client.createSelection({ currency: 'SEK', country: 'SE', language: 'sv' });
      await expect(cart.client.addItem(id, item('6-1', 10, quantity))).rejects.toMatchObject({ kind: 'invalid' });
      expect((await cart.client.getSelection(id))!.items).toEqual([]);
    });

    it('refuses to add to a selection that does not exist', async () => {
      await expect(cart.client.addItem('00000000-0000-4000-8000-000000000000', item('7-1', 1))).rejects.toMatchObject({
        kind: 'not_found',
        fields: { selection: 'not found' },
      });
    });
  });
}
