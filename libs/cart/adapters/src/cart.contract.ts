import { readFileSync } from 'node:fs';
import { currencyFormats, parseStoreConfig } from '@commerce/shared-config';
import { migrate, type Db } from '@commerce/shared-db';
import type { AddItemCommand, NewSelectionCommand } from '@commerce/cart-contracts';
import { itemIdParts } from '@commerce/catalog-contracts';
import { buildCartService, type CartService } from './cart.service';
import { cartMigrations } from './cart.migrations';

const store = parseStoreConfig(JSON.parse(readFileSync('infra/config/demo-store.json', 'utf8')));

/** An item to add, as the edge sends it (the product and size from its id `product-size`; `price` in hundredths). */
export const item = (id: string, price: number, quantity = 1): AddItemCommand => ({
  item: id,
  ...itemIdParts(id),
  sku: `SKU-${id}`,
  ean: '',
  productName: `Product ${id}`,
  brandName: 'Brand',
  priceEachMinor: Math.round(price * 100),
  quantity,
});

/** The cart's behaviour through its client, run on PGlite (unit) and on Postgres (int); `db()` gives a new schema each call. */
export function cartContract(name: string, db: () => Promise<Db>) {
  describe(`cart service on ${name}`, () => {
    let cart: CartService;
    let database: Db;

    beforeAll(async () => {
      database = await db();
      cart = await buildCartService({ db: database, currencyFormat: currencyFormats(store) });
    }, 60_000);

    it('creates an empty selection in the given currency', async () => {
      const created = await cart.client.createSelection({ currency: 'EUR', country: 'DE', language: 'de' });
      expect(await cart.client.getSelection(created.id)).toMatchObject({
        id: created.id,
        currency: 'EUR',
        country: 'DE',
        items: [],
      });
    });

    it('creates a selection with its first change in one statement, and nothing when the change is refused (decision 157)', async () => {
      const seen: string[] = [];
      const listen = (q: { sql: string }) => void seen.push(q.sql);
      database.knex.on('query', listen);
      let created;
      try {
        created = await cart.client.createSelection({
          currency: 'SEK',
          country: 'SE',
          language: 'sv',
          change: {
            lines: [
              { op: 'addItem', item: item('20-1', 10), quantity: 2 },
              { op: 'addItem', item: item('20-2', 0.01), quantity: 1 },
            ],
          },
        });
      } finally {
        database.knex.off('query', listen);
      }
      expect(seen).toHaveLength(1);
      expect(created.items.map((i) => [i.item, i.quantity, i.priceEachMinor])).toEqual([
        ['20-1', 2, 1000],
        ['20-2', 1, 1],
      ]);
      expect(await cart.client.getSelection(created.id)).toEqual(created);
      // Changed next from the copy this process keeps, as any selection it wrote.
      const next = await cart.client.changeSelection(created.id, { lines: [{ op: 'setLine', line: created.items[0]!.line, quantity: 5 }] });
      expect(next.items.map((i) => i.quantity)).toEqual([5, 1]);
      // A refused first change (the product's quantity rule) creates nothing and answers the change's own error.
      const before = Number(
        ((await database.knex.withSchema(database.schema).table('selections').count('* as n')) as Array<{ n: unknown }>)[0]!.n,
      );
      await expect(
        cart.client.createSelection({
          currency: 'SEK',
          country: 'SE',
          language: 'sv',
          change: { lines: [{ op: 'addItem', item: { ...item('20-3', 10), quantityMultipleOf: 2 }, quantity: 3 }] },
        }),
      ).rejects.toMatchObject({ code: 'CART.QUANTITY_RULE' });
      const after = Number(
        ((await database.knex.withSchema(database.schema).table('selections').count('* as n')) as Array<{ n: unknown }>)[0]!.n,
      );
      expect(after).toBe(before);
    });

    it('creates several anonymous selections with their first changes in one statement, each with its own outcome (decision 184)', async () => {
      const command = (change?: NewSelectionCommand['change']): NewSelectionCommand => ({
        currency: 'SEK',
        country: 'SE',
        language: 'sv',
        ...(change ? { change } : {}),
      });
      const commands = [
        command({
          lines: [
            { op: 'addItem', item: item('22-1', 10), quantity: 2 },
            { op: 'addItem', item: item('22-2', 0.01), quantity: 1 },
          ],
        }),
        command(),
        // Refused: the product's quantity rule.
        command({ lines: [{ op: 'addItem', item: { ...item('22-3', 10), quantityMultipleOf: 2 }, quantity: 3 }] }),
        { ...command({ addVoucher: 'SUMMER "25"', set: { paymentMethod: 'card', country: null } }), currency: 'EUR', language: null },
      ];
      const seen: string[] = [];
      const listen = (q: { sql: string }) => void seen.push(q.sql);
      database.knex.on('query', listen);
      let settled;
      try {
        settled = await cart.client.createSelections!(commands);
      } finally {
        database.knex.off('query', listen);
      }
      expect(seen).toHaveLength(1);
      expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
      expect((settled[2] as PromiseRejectedResult).reason).toMatchObject({ code: 'CART.QUANTITY_RULE' });
      const [a, b, , d] = settled.map((s) => (s.status === 'fulfilled' ? s.value : undefined));
      expect(a!.items.map((i) => [i.item, i.quantity, i.priceEachMinor])).toEqual([
        ['22-1', 2, 1000],
        ['22-2', 1, 1],
      ]);
      expect(d).toMatchObject({
        currency: 'EUR',
        country: null,
        language: null,
        paymentMethod: 'card',
        vouchers: ['SUMMER "25"'],
        items: [],
      });
      for (const made of [a!, b!, d!]) expect(await cart.client.getSelection(made.id)).toEqual(made);
      // Kept as any selection this process wrote: the next change is one statement.
      database.knex.on('query', listen);
      seen.length = 0;
      try {
        const next = await cart.client.changeSelection(a!.id, { lines: [{ op: 'setLine', line: a!.items[0]!.line, quantity: 5 }] });
        expect(next.items.map((i) => i.quantity)).toEqual([5, 1]);
      } finally {
        database.knex.off('query', listen);
      }
      expect(seen).toHaveLength(1);
      // A customer's goes as createSelection: to the saved selection when there is one.
      const customerId = `customer-${Date.now()}-${Math.random()}`;
      const saved = await cart.client.createSelection({ ...command(), customerId });
      const [mine, other] = await cart.client.createSelections!([
        { ...command({ lines: [{ op: 'addItem', item: item('22-4', 10), quantity: 1 }] }), customerId },
        command({ lines: [{ op: 'addItem', item: item('22-5', 10), quantity: 1 }] }),
      ]);
      expect(mine).toMatchObject({ status: 'fulfilled', value: { id: saved.id, items: [{ item: '22-4' }] } });
      expect(other).toMatchObject({ status: 'fulfilled', value: { items: [{ item: '22-5' }] } });
    });

    it("makes a customer's first change to the saved selection when one is there", async () => {
      const customerId = `customer-${Date.now()}-${Math.random()}`;
      const saved = await cart.client.createSelection({ currency: 'SEK', country: 'SE', language: 'sv', customerId });
      const again = await cart.client.createSelection({
        currency: 'SEK',
        country: 'SE',
        language: 'sv',
        customerId,
        change: { lines: [{ op: 'addItem', item: item('21-1', 10), quantity: 1 }] },
      });
      expect(again.id).toBe(saved.id);
      expect((await cart.client.getSelection(saved.id))?.items.map((i) => i.item)).toEqual(['21-1']);
    });

    it('closes a selection (its order was placed): it is gone, closing again does nothing, and the customer gets a new saved one', async () => {
      const customerId = `customer-${Date.now()}-${Math.random()}`;
      const saved = await cart.client.createSelection({ currency: 'SEK', country: 'SE', language: 'sv', customerId });
      await cart.client.addItem(saved.id, item('1-1', 100));
      await Promise.all([cart.client.closeSelection(saved.id), cart.client.closeSelection(saved.id)]);
      expect(await cart.client.getSelection(saved.id)).toBeNull();
      expect(await cart.client.savedSelection(customerId)).toBeNull();
      await cart.client.closeSelection('00000000-0000-4000-8000-000000000000');
      const next = await cart.client.createSelection({ currency: 'SEK', country: 'SE', language: 'sv', customerId });
      expect(next.id).not.toBe(saved.id);
      expect(next.items).toEqual([]);
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
      expect(after.items[0]).toMatchObject({ priceEachMinor: 10000, priceEachBeforeDiscountMinor: 10000 });
      // The cart adds nothing up: a selection's totals are the checkout's pricing (docs/pricing.md).
      expect(after).not.toHaveProperty('totals');
    });

    it("keeps the ERP's ids of an item from its add on its line (decision 113): a later add takes the newest, an add without them leaves none", async () => {
      const ids = (variation: string) => ({ product: 'P-1', variation, size: 'ST-M', brand: 'B-1' });
      const { id } = await cart.client.createSelection({ currency: 'SEK', country: 'SE', language: 'sv' });
      await cart.client.addItem(id, { ...item('5-1', 10), external: ids('V-1') });
      const plain = await cart.client.addItem(id, item('6-1', 10));
      expect(plain.items.map((i) => [i.item, i.external])).toEqual([
        ['5-1', ids('V-1')],
        ['6-1', undefined],
      ]);
      expect(plain.items[1]).not.toHaveProperty('external');
      await cart.client.changeSelection(id, {
        lines: [{ op: 'addItem', item: { ...item('5-1', 10), external: ids('V-2') }, quantity: 1 }],
      });
      await cart.client.changeSelection(id, {
        lines: [{ op: 'setItem', item: { ...item('6-1', 10), external: ids('V-3') }, quantity: 2 }],
      });
      // Read back from the store, not from the change's answer.
      const read = await buildCartService({ db: database, currencyFormat: currencyFormats(store) });
      expect((await read.client.getSelection(id))?.items.map((i) => [i.item, i.quantity, i.external])).toEqual([
        ['5-1', 2, ids('V-2')],
        ['6-1', 2, ids('V-3')],
      ]);
      // An add by an edge of the release before (no ids): the line keeps none, and the checkout asks the catalog.
      const older = await cart.client.addItem(id, item('5-1', 10));
      expect(older.items[0]).not.toHaveProperty('external');
      expect((await read.client.getSelection(id))?.items[0]).not.toHaveProperty('external');
    });

    it('keeps prices in integer minor units as given, a cent as 1', async () => {
      const { id } = await cart.client.createSelection({ currency: 'EUR', country: 'DE', language: 'de' });
      await cart.client.addItem(id, item('3-1', 0.01));
      // The largest price the decimal copy of the release before holds (numeric(14,4)): 9,999,999,999.99.
      const after = await cart.client.addItem(id, { ...item('4-1', 0.2), priceEachMinor: 999_999_999_999 });
      expect(after.items.map((i) => i.priceEachMinor)).toEqual([1, 999_999_999_999]);
      expect((await cart.client.getSelection(id))?.items.map((i) => i.priceEachMinor)).toEqual([1, 999_999_999_999]);
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

    describe('changes', () => {
      const newSelection = () => cart.client.createSelection({ currency: 'SEK', country: 'SE', language: 'sv' });
      const { quantity: _q, ...jacket } = item('10-1', 100);
      const { quantity: _q2, ...socks } = item('11-1', 20);

      it('sets, raises, lowers and removes lines by line id', async () => {
        const { id } = await newSelection();
        const added = await cart.client.changeSelection(id, {
          lines: [
            { op: 'addItem', item: jacket, quantity: 1 },
            { op: 'addItem', item: socks, quantity: 4 },
          ],
        });
        const [j, s] = added.items.map((i) => i.line) as [string, string];
        let after = await cart.client.changeSelection(id, { lines: [{ op: 'addLine', line: j, quantity: 2 }] });
        expect(after.items.map((i) => i.quantity)).toEqual([3, 4]);
        after = await cart.client.changeSelection(id, { lines: [{ op: 'addLine', line: s, quantity: -1 }] });
        expect(after.items.map((i) => i.quantity)).toEqual([3, 3]);
        after = await cart.client.changeSelection(id, { lines: [{ op: 'setLine', line: j, quantity: 7 }] });
        expect(after.items.map((i) => [i.line, i.quantity])).toEqual([
          [j, 7],
          [s, 3],
        ]);
        after = await cart.client.changeSelection(id, { lines: [{ op: 'addLine', line: s, quantity: -5 }] });
        expect(after.items.map((i) => i.line)).toEqual([j]);
        after = await cart.client.changeSelection(id, { lines: [{ op: 'setLine', line: j, quantity: 0 }] });
        expect(after.items).toEqual([]);
      });

      it('sets the quantities of items and lines in one change, 0 removing', async () => {
        const { id } = await newSelection();
        const added = await cart.client.changeSelection(id, { lines: [{ op: 'addItem', item: jacket, quantity: 2 }] });
        const after = await cart.client.changeSelection(id, {
          lines: [
            { op: 'setLine', line: added.items[0]!.line, quantity: 0 },
            { op: 'setItem', item: socks, quantity: 5 },
          ],
        });
        expect(after.items.map((i) => [i.item, i.quantity])).toEqual([['11-1', 5]]);
      });

      it('refuses an unknown line and a quantity the product rules forbid, writing nothing of the change', async () => {
        const { id } = await newSelection();
        const rules = { ...socks, quantityMinimum: 2, quantityMultipleOf: 2 };
        await expect(cart.client.changeSelection(id, { lines: [{ op: 'removeLine', line: 'nope' }] })).rejects.toMatchObject({
          kind: 'not_found',
          fields: { line: 'not found' },
        });
        await expect(
          cart.client.changeSelection(id, {
            lines: [
              { op: 'addItem', item: jacket, quantity: 1 },
              { op: 'addItem', item: rules, quantity: 1 },
            ],
          }),
        ).rejects.toMatchObject({ kind: 'invalid', fields: { quantity: 'item 11-1 can be bought 2 or more at a time' } });
        expect((await cart.client.getSelection(id))!.items).toEqual([]);
        const ok = await cart.client.changeSelection(id, { lines: [{ op: 'addItem', item: rules, quantity: 2 }] });
        await expect(
          cart.client.changeSelection(id, { lines: [{ op: 'addLine', line: ok.items[0]!.line, quantity: 1 }] }),
        ).rejects.toMatchObject({ fields: { quantity: 'item 11-1 is sold in multiples of 2' } });
      });

      it('keeps the selection fields, sale prices and new prices it is given', async () => {
        const { id } = await newSelection();
        const added = await cart.client.changeSelection(id, {
          lines: [{ op: 'addItem', item: { ...jacket, priceEachBeforeDiscountMinor: 15000 }, quantity: 1 }],
          set: { shippingMethod: 'post', paymentMethod: 'card', vouchers: ['SAVE10'], paymentFields: { email: 'a@b.se' } },
        });
        expect(added).toMatchObject({
          shippingMethod: 'post',
          paymentMethod: 'card',
          vouchers: ['SAVE10'],
          paymentFields: { email: 'a@b.se' },
        });
        expect(added.items[0]).toMatchObject({ priceEachMinor: 10000, priceEachBeforeDiscountMinor: 15000 });
        const repriced = await cart.client.changeSelection(id, {
          set: { currency: 'EUR', country: 'DE', language: 'de' },
          prices: [{ line: added.items[0]!.line, priceEachMinor: 950 }],
        });
        expect(repriced).toMatchObject({ currency: 'EUR', country: 'DE' });
        // No sale price given: the line is no longer on sale.
        expect(repriced.items[0]).toMatchObject({ priceEachMinor: 950, priceEachBeforeDiscountMinor: 950 });
        expect((await cart.client.changeSelection(id, { removeLines: [added.items[0]!.line] })).items).toEqual([]);
      });

      it('adds and removes voucher codes and merges payment fields under the lock, concurrent ones included', async () => {
        const { id } = await newSelection();
        await Promise.all([
          cart.client.changeSelection(id, { addVoucher: 'A' }),
          cart.client.changeSelection(id, { addVoucher: 'B' }),
          cart.client.changeSelection(id, { mergePaymentFields: { email: 'a@b.se' } }),
          cart.client.changeSelection(id, { mergePaymentFields: { city: 'Malmö' } }),
        ]);
        const both = await cart.client.changeSelection(id, { addVoucher: 'a' });
        expect([...both.vouchers].sort()).toEqual(['A', 'B']);
        expect(both.paymentFields).toEqual({ email: 'a@b.se', city: 'Malmö' });
        expect((await cart.client.changeSelection(id, { removeVoucher: 'b' })).vouchers).toEqual(['A']);
      });

      it('writes a change nobody contends as one conditional statement, outside a transaction, from the selection as this process last wrote it', async () => {
        const { id } = await newSelection();
        const added = await cart.client.changeSelection(id, {
          lines: [
            { op: 'addItem', item: item('7-1', 10), quantity: 1 },
            { op: 'addItem', item: item('7-2', 20), quantity: 1 },
          ],
        });
        const [a, b] = added.items.map((i) => i.line) as [string, string];
        const seen: Array<{ sql: string; tx: unknown }> = [];
        const listen = (q: { sql: string; __knexTxId?: unknown }) => void seen.push({ sql: q.sql, tx: q.__knexTxId });
        database.knex.on('query', listen);
        let after;
        try {
          // One line removed, one changed and one added: every part of the write in the one statement.
          after = await cart.client.changeSelection(id, {
            lines: [
              { op: 'removeLine', line: a },
              { op: 'setLine', line: b, quantity: 4 },
              { op: 'addItem', item: item('7-3', 30), quantity: 2 },
            ],
            addVoucher: 'V',
          });
        } finally {
          database.knex.off('query', listen);
        }
        // No read (decision 62): the process wrote the selection last, and the write's version check proves it current.
        expect(seen).toHaveLength(1);
        expect(seen.every((q) => q.tx === undefined)).toBe(true);
        expect(after.items.map((i) => [i.item, i.quantity])).toEqual([
          ['7-2', 4],
          ['7-3', 2],
        ]);
        expect(await cart.client.getSelection(id)).toEqual(after);
      });

      it('reads again when another process changed the selection since this one kept it, losing nothing and refusing nothing', async () => {
        // A second cart process (replica) on the same database: each keeps what it last read or wrote.
        const other = await buildCartService({ db: database, currencyFormat: currencyFormats(store) });
        const { id } = await newSelection();
        const first = await cart.client.changeSelection(id, { lines: [{ op: 'addItem', item: item('9-1', 10), quantity: 1 }] });
        // The other process adds a line and raises the first one; this one's kept selection knows neither.
        const meanwhile = await other.client.changeSelection(id, {
          lines: [
            { op: 'addItem', item: item('9-2', 20), quantity: 1 },
            { op: 'addLine', line: first.items[0]!.line, quantity: 2 },
          ],
        });
        const seen: string[] = [];
        const listen = (q: { sql: string }) => void seen.push(q.sql);
        database.knex.on('query', listen);
        let after;
        try {
          // A line only the other process knows: refused by the kept selection, so read again, then applied.
          after = await cart.client.changeSelection(id, { lines: [{ op: 'addLine', line: meanwhile.items[1]!.line, quantity: 1 }] });
        } finally {
          database.knex.off('query', listen);
        }
        expect(seen).toHaveLength(2);
        expect(after.items.map((i) => [i.item, i.quantity])).toEqual([
          ['9-1', 3],
          ['9-2', 2],
        ]);
        // The other process's kept selection is now behind: its write fails the version check and reads again.
        const last = await other.client.changeSelection(id, { lines: [{ op: 'addItem', item: item('9-1', 10), quantity: 1 }] });
        expect(last.items.map((i) => [i.item, i.quantity])).toEqual([
          ['9-1', 4],
          ['9-2', 2],
        ]);
        expect(await cart.client.getSelection(id)).toEqual(last);
        // Closed by one process, the other's kept selection does not bring it back.
        await other.client.closeSelection(id);
        await expect(
          cart.client.changeSelection(id, { lines: [{ op: 'addItem', item: item('9-3', 5), quantity: 1 }] }),
        ).rejects.toMatchObject({
          code: 'CART.SELECTION_NOT_FOUND',
        });
      });

      it('writes a batch of kept item changes as one statement, each with its own outcome, a stale or refused one read again (decision 78)', async () => {
        const other = await buildCartService({ db: database, currencyFormat: currencyFormats(store) });
        const ids = await Promise.all(Array.from({ length: 5 }, async () => (await newSelection()).id));
        const [a, b, c, d, e] = ids as [string, string, string, string, string];
        const firsts = await Promise.all(
          ids.map((id) => cart.client.changeSelection(id, { lines: [{ op: 'addItem', item: item('12-1', 10), quantity: 1 }] })),
        );
        // Another process changes c since this one kept it: c's part of the statement matches nothing.
        await other.client.changeSelection(c, { lines: [{ op: 'addItem', item: item('12-2', 5), quantity: 1 }] });
        const seen: Array<{ sql: string; tx: unknown }> = [];
        const listen = (q: { sql: string; __knexTxId?: unknown }) => void seen.push({ sql: q.sql, tx: q.__knexTxId });
        database.knex.on('query', listen);
        let settled;
        try {
          settled = await cart.client.changeSelections!([
            { id: a, change: { lines: [{ op: 'addItem', item: item('12-1', 10), quantity: 2 }] } }, // a line changed
            { id: b, change: { lines: [{ op: 'addItem', item: item('12-3', 7), quantity: 1 }] } }, // a line added
            { id: c, change: { lines: [{ op: 'addItem', item: item('12-1', 10), quantity: 1 }] } }, // stale: read again
            { id: '00000000-0000-4000-8000-000000000000', change: { lines: [{ op: 'addItem', item: item('12-1', 10), quantity: 1 }] } },
            { id: d, change: { lines: [{ op: 'removeLine', line: firsts[3]!.items[0]!.line }] } }, // a line removed
            { id: e, change: { lines: [{ op: 'addItem', item: item('12-1', 10), quantity: 0 }] } }, // refused
            { id: a, change: { lines: [{ op: 'setLine', line: firsts[0]!.items[0]!.line, quantity: 9 }] } }, // a again: after the first
          ]);
        } finally {
          database.knex.off('query', listen);
        }
        const lines = (i: number) => {
          const outcome = settled[i]!;
          return outcome.status === 'fulfilled'
            ? outcome.value.items.map((l) => [l.item, l.quantity])
            : (outcome.reason as { code: string }).code;
        };
        expect([0, 1, 2, 3, 4, 5, 6].map(lines)).toEqual([
          [['12-1', 3]],
          [
            ['12-1', 1],
            ['12-3', 1],
          ],
          [
            ['12-1', 2],
            ['12-2', 1],
          ],
          'CART.SELECTION_NOT_FOUND',
          [],
          'CART.INVALID_QUANTITY',
          [['12-1', 9]],
        ]);
        for (const [i, id] of [
          [6, a],
          [1, b],
          [2, c],
          [4, d],
        ] as const) {
          const outcome = settled[i]!;
          expect(await cart.client.getSelection(id)).toEqual(outcome.status === 'fulfilled' ? outcome.value : null);
        }
        // b, c and d in one statement (a twice in the batch, so on its own: two statements, in order); c read
        // and written again; the unknown selection's read; e's kept try refused, so read (and refused).
        const combined = seen.filter((q) => q.sql.includes('unnest('));
        expect(combined).toHaveLength(1);
        expect(seen.every((q) => q.tx === undefined)).toBe(true);
        expect(seen).toHaveLength(1 + 2 + 2 + 1 + 1);
      });

      it('reads first, not a stale kept selection and then again, once replicas take turns with its changes', async () => {
        const a = await buildCartService({ db: database, currencyFormat: currencyFormats(store) });
        const b = await buildCartService({ db: database, currencyFormat: currencyFormats(store) });
        const { id } = await newSelection();
        const add = (service: CartService) =>
          service.client.changeSelection(id, { lines: [{ op: 'addItem', item: item('10-1', 10), quantity: 1 }] });
        // Each service's kept copy is stale at its every turn: a try, then a read and a write.
        for (let i = 0; i < 40; i++) await add(i % 2 ? b : a);
        const seen: string[] = [];
        const listen = (q: { sql: string }) => void seen.push(q.sql);
        database.knex.on('query', listen);
        try {
          for (let i = 0; i < 10; i++) await add(i % 2 ? b : a);
        } finally {
          database.knex.off('query', listen);
        }
        // Now a read and a write a change, as without kept copies.
        expect(seen).toHaveLength(20);
        expect((await a.client.getSelection(id))!.items[0]!.quantity).toBe(50);
      });

      it('removes an item and adds it again on a new line in one change', async () => {
        const { id } = await newSelection();
        const added = await cart.client.changeSelection(id, { lines: [{ op: 'addItem', item: item('8-1', 10), quantity: 1 }] });
        const after = await cart.client.changeSelection(id, {
          lines: [
            { op: 'setItem', item: item('8-1', 10), quantity: 0 },
            { op: 'setItem', item: item('8-1', 12), quantity: 3 },
          ],
        });
        expect(after.items).toHaveLength(1);
        expect(after.items[0]).toMatchObject({ item: '8-1', quantity: 3, priceEachMinor: 1200 });
        expect(after.items[0]!.line).not.toBe(added.items[0]!.line);
        expect(await cart.client.getSelection(id)).toEqual(after);
      });

      it('loses no update when different lines change concurrently', async () => {
        const { id } = await newSelection();
        const added = await cart.client.changeSelection(id, {
          lines: [
            { op: 'addItem', item: jacket, quantity: 1 },
            { op: 'addItem', item: socks, quantity: 1 },
          ],
        });
        const [j, s] = added.items.map((i) => i.line) as [string, string];
        await Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            cart.client.changeSelection(id, { lines: [{ op: 'addLine', line: i % 2 ? j : s, quantity: 1 }] }),
          ),
        );
        expect((await cart.client.getSelection(id))!.items.map((i) => i.quantity)).toEqual([7, 7]);
      });
    });

    describe('saved selection of a customer', () => {
      let n = 0;
      const customer = () => `customer-${Date.now()}-${++n}`;
      const open = (customerId?: string) =>
        cart.client.createSelection({ currency: 'SEK', country: 'SE', language: 'sv', ...(customerId ? { customerId } : {}) });

      it('makes the anonymous selection the saved one when the customer has none', async () => {
        const c = customer();
        const anonymous = await open();
        await cart.client.addItem(anonymous.id, item('1-1', 100));
        const claimed = await cart.client.claimSelection(c, anonymous.id);
        expect(claimed?.id).toBe(anonymous.id);
        expect((await cart.client.savedSelection(c))?.items.map((i) => i.item)).toEqual(['1-1']);
      });

      it('merges the anonymous lines into the saved selection (an item on both adds up) and closes the anonymous one', async () => {
        const c = customer();
        const saved = await open(c);
        await cart.client.addItem(saved.id, item('1-1', 100, 2));
        await cart.client.addItem(saved.id, item('2-1', 50));
        const anonymous = await open();
        await cart.client.addItem(anonymous.id, item('2-1', 55, 3));
        await cart.client.addItem(anonymous.id, item('3-1', 10));
        const merged = await cart.client.claimSelection(c, anonymous.id);
        expect(merged?.id).toBe(saved.id);
        expect(merged?.items.map((i) => [i.item, i.quantity, i.priceEachMinor])).toEqual([
          ['1-1', 2, 10000],
          ['2-1', 4, 5500],
          ['3-1', 1, 1000],
        ]);
        expect(await cart.client.getSelection(anonymous.id)).toBeNull();
        expect(await cart.client.getSelection(saved.id)).toEqual(merged);
      });

      it('answers the saved selection for no anonymous one, and null when there is neither', async () => {
        const c = customer();
        expect(await cart.client.claimSelection(c, null)).toBeNull();
        expect(await cart.client.savedSelection(c)).toBeNull();
        const saved = await open(c);
        expect((await cart.client.claimSelection(c, null))?.id).toBe(saved.id);
        expect((await cart.client.claimSelection(c, saved.id))?.id).toBe(saved.id);
      });

      it('keeps one open saved selection a customer: a second one made meanwhile is the first', async () => {
        const c = customer();
        const [a, b] = await Promise.all([open(c), open(c)]);
        expect(a.id).toBe(b.id);
      });

      it('two devices logging in at once end with one saved selection holding both anonymous selections', async () => {
        const c = customer();
        const [x, y] = await Promise.all([open(), open()]);
        await cart.client.addItem(x.id, item('1-1', 100));
        await cart.client.addItem(y.id, item('2-1', 50));
        const [cx, cy] = await Promise.all([cart.client.claimSelection(c, x.id), cart.client.claimSelection(c, y.id)]);
        expect(cx?.id).toBeDefined();
        const saved = await cart.client.savedSelection(c);
        expect(saved?.items.map((i) => i.item).sort()).toEqual(['1-1', '2-1']);
        expect([cx?.id, cy?.id]).toContain(saved?.id);
      });
    });

    describe('migration 006_line_price_minor', () => {
      // SEK with 2 decimals as the demo store has it, and a currency with none.
      const format = (currency: string) => ({ ...currencyFormats(store)('SEK'), currency, decimalDigits: currency === 'JPY' ? 0 : 2 });
      const sek = '00000000-0000-4000-8000-000000000601';
      const yen = '00000000-0000-4000-8000-000000000602';
      const line = (selection: string, id: string, price: string, before?: string) => ({
        selection_id: selection,
        line: id,
        item: `${id.length}-1`,
        product: String(id.length),
        size: 'M',
        quantity: 1,
        price_each: price,
        ...(before ? { price_each_before_discount: before } : {}),
      });
      const prices = async (service: CartService, id: string) =>
        (await service.client.getSelection(id))?.items.map((i) => [i.line, i.priceEachMinor, i.priceEachBeforeDiscountMinor]);

      it("converts the decimal prices of lines before it to minor units of their selection's currency, and reads what an older replica writes", async () => {
        const old = await db();
        await migrate(
          old,
          cartMigrations((c) => format(c).decimalDigits).filter((m) => m.name < '006'),
        );
        await old.table('selections').insert([
          { id: sek, currency: 'SEK', country: 'SE', language: 'sv' },
          { id: yen, currency: 'JPY', country: 'SE', language: 'sv' },
        ]);
        await old
          .table('selection_lines')
          .insert([line(sek, 'a1', '199.9000', '249.9000'), line(sek, 'a22', '0.1000'), line(yen, 'b1', '1500.0000')]);

        const migrated = await buildCartService({ db: old, currencyFormat: format });
        expect(await prices(migrated, sek)).toEqual([
          ['a1', 19990, 24990],
          ['a22', 10, 10],
        ]);
        expect(await prices(migrated, yen)).toEqual([['b1', 1500, 1500]]);

        // A replica of the release before, during a rolling update: it writes the decimal only, and reads it.
        await old.table('selection_lines').insert(line(sek, 'a333', '5.5000'));
        const next = await buildCartService({ db: old, currencyFormat: format });
        expect(await prices(next, sek)).toEqual([
          ['a1', 19990, 24990],
          ['a22', 10, 10],
          ['a333', 550, 550],
        ]);
        const added = await next.client.changeSelection(sek, { lines: [{ op: 'addItem', item: item('9-1', 12.34), quantity: 1 }] });
        const written = await old.table('selection_lines').where({ line: added.items[3]!.line }).first('price_each', 'price_each_minor');
        expect([Number(written.price_each), Number(written.price_each_minor)]).toEqual([12.34, 1234]);
      });
    });

    describe('migration 008_lines_without_selection_foreign_key', () => {
      const migration = cartMigrations(() => 2).find((m) => m.name === '008_lines_without_selection_foreign_key')!;
      /** The `on delete` action of each foreign key of a schema's `selection_lines` (`c`: cascade). */
      const foreignKeysOf = async (of: Db) =>
        (
          (await of.knex.raw(`select confdeltype as on_delete from pg_constraint where conrelid = ?::regclass and contype = 'f'`, [
            `${of.schema}.selection_lines`,
          ])) as { rows: Array<{ on_delete: string }> }
        ).rows.map((r) => r.on_delete);

      it('leaves the lines without a foreign key: every write of lines takes its selection from the row it wrote, and a selection is never deleted (decision 198)', async () => {
        expect(await foreignKeysOf(database)).toEqual([]);
        // Lines still come and go with their selection's changes, batched or one by one.
        const made = await cart.client.createSelection({ currency: 'SEK', country: 'SE', language: 'sv' });
        const [one, two] = await Promise.all([
          cart.client.changeSelection(made.id, { lines: [{ op: 'addItem', item: item('94-1', 3), quantity: 1 }] }),
          cart.client.changeSelection(made.id, { lines: [{ op: 'addItem', item: item('94-2', 4), quantity: 2 }] }),
        ]);
        expect([one, two].map((s) => s.items.length).sort()).toEqual([1, 2]);
        expect((await cart.client.getSelection(made.id))?.items.map((i) => [i.item, i.quantity]).sort()).toEqual([
          ['94-1', 1],
          ['94-2', 2],
        ]);
        expect(Number((await database.table('selection_lines').where({ selection_id: made.id }).count('* as n'))[0]!.n)).toBe(2);
      });

      it('writes no line for a closed or an unknown selection, one change at a time or batched: no line without its selection', async () => {
        const closed = await cart.client.createSelection({ currency: 'SEK', country: 'SE', language: 'sv' });
        await cart.client.closeSelection(closed.id);
        const unknown = '00000000-0000-4000-8000-000000000942';
        const add = (n: number) => ({ lines: [{ op: 'addItem' as const, item: item(`942-${n}`, 5), quantity: 1 }] });
        for (const id of [closed.id, unknown]) await expect(cart.client.changeSelection(id, add(1))).rejects.toThrow();
        if (cart.client.changeSelections) {
          const settled = await cart.client.changeSelections([
            { id: closed.id, change: add(2) },
            { id: unknown, change: add(3) },
          ]);
          expect(settled.map((r) => r.status)).toEqual(['rejected', 'rejected']);
        }
        const orphans = await database.knex.raw(
          `select count(*)::int as n from ${database.qualified('selection_lines')} l left join ${database.qualified('selections')} s on s.id = l.selection_id where s.id is null`,
        );
        expect((orphans as { rows: Array<{ n: number }> }).rows[0]!.n).toBe(0);
        expect(Number((await database.table('selection_lines').whereIn('selection_id', [closed.id, unknown]).count('* as n'))[0]!.n)).toBe(
          0,
        );
      });

      it('down makes the foreign key again (a line needs its selection, and goes with it), up drops it', async () => {
        const own = await db();
        await migrate(
          own,
          cartMigrations(() => 2),
        );
        expect(await foreignKeysOf(own)).toEqual([]);
        await migration.down!(own.knex, own.schema);
        expect(await foreignKeysOf(own)).toEqual(['c']);
        const orphan = {
          selection_id: '00000000-0000-4000-8000-000000000941',
          line: 'x941',
          item: '9-1',
          product: '9',
          size: 'M',
          quantity: 1,
          price_each: '1.0000',
        };
        await expect(own.table('selection_lines').insert(orphan)).rejects.toThrow(/foreign key/);
        await migration.up(own.knex, own.schema);
        expect(await foreignKeysOf(own)).toEqual([]);
      });
    });

    describe('migration 009_selections_fillfactor', () => {
      /** Each table's storage options (`fillfactor=85`), by table. */
      const optionsOf = async (of: Db) =>
        Object.fromEntries(
          (
            (await of.knex.raw(
              `select c.relname, coalesce(array_to_string(c.reloptions, ','), '') as options from pg_class c
               join pg_namespace n on n.oid = c.relnamespace where n.nspname = ? and c.relname in ('selections', 'selection_lines')`,
              [of.schema],
            )) as { rows: Array<{ relname: string; options: string }> }
          ).rows.map((r) => [r.relname, r.options]),
        );

      it('leaves room on the pages of selections and their lines, so a change rewrites no index entry (decision 202); down gives it back', async () => {
        const own = await db();
        await migrate(
          own,
          cartMigrations(() => 2),
        );
        expect(await optionsOf(own)).toEqual({ selections: 'fillfactor=85', selection_lines: 'fillfactor=85' });
        const migration = cartMigrations(() => 2).find((m) => m.name === '009_selections_fillfactor')!;
        await migration.down!(own.knex, own.schema);
        expect(await optionsOf(own)).toEqual({ selections: '', selection_lines: '' });
        await migration.up(own.knex, own.schema);
        expect(await optionsOf(own)).toEqual({ selections: 'fillfactor=85', selection_lines: 'fillfactor=85' });
      });
    });
  });
}
