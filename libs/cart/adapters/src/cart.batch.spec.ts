import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { currencyFormats, parseStoreConfig } from '@commerce/shared-config';
import { createDbEngine, type DbEngine } from '@commerce/shared-db';
import { createHttpApp, mountRouters, withLeanRoutes } from '@commerce/shared-http';
import { createLogger, currentRequestId, withRequestContext } from '@commerce/shared-logging';
import { uniqueName } from '@commerce/shared-testing';
import {
  CART_BATCH_PATH,
  CART_CHANGES_PATH,
  createCartHttpClient,
  type CartClient,
  type LineItemData,
  type SelectionChange,
} from '@commerce/cart-contracts';
import { buildCartService, type CartService } from './cart.service';
import { item } from './cart.contract';
import { createCartInternalRouter, createCartLeanRoutes } from './cart.internal-routes';

const store = parseStoreConfig(JSON.parse(readFileSync('infra/config/demo-store.json', 'utf8')));
const logger = createLogger('cart-batch-spec', 'silent');

const add = (id: string, quantity = 1, extra: Partial<LineItemData> = {}): SelectionChange => {
  const { quantity: _one, ...data } = item(id, 100);
  return { lines: [{ op: 'addItem', item: { ...data, ...extra }, quantity }] };
};
const unknownSelection = '00000000-0000-4000-8000-000000000000';
/** One batch call in flight at a time: what a burst sends is then one alone and the rest together. */
const oneInFlight = { callsInFlight: 1 };

/** Settled outcomes, comparable: the selection's lines, or the error's code, kind and fields. */
const outcomes = (settled: PromiseSettledResult<Awaited<ReturnType<CartClient['changeSelection']>>>[]) =>
  settled.map((s) =>
    s.status === 'fulfilled'
      ? { lines: s.value.items.map((i) => [i.item, i.quantity]) }
      : { error: { ...(s.reason as object) }, code: (s.reason as { code?: string }).code },
  );

describe('selection changes batched over HTTP (decision 78)', () => {
  let engine: DbEngine;
  let cart: CartService;
  const servers: Server[] = [];
  /** The paths the cart was asked for, and the request ids its changes ran under. */
  const paths: string[] = [];
  const changedUnder: Array<string | undefined> = [];
  let batched: CartClient;
  let alone: CartClient;
  let noting: CartClient;
  /** As the edge makes it: two calls in flight at once (decision 184). */
  let two: CartClient;

  const listen = async (handler: (req: IncomingMessage, res: ServerResponse) => void) => {
    const server = createServer((req, res) => {
      paths.push(req.url ?? '');
      handler(req, res);
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  /** The cart as its process serves it: lean routes before the app (or the app alone), on a client that notes request ids. */
  const serve = async (client: CartClient, lean: boolean, router = createCartInternalRouter(client, logger)) => {
    const app = createHttpApp({ service: 'cart', logger, metrics: false });
    mountRouters(app, [router]);
    return listen(lean ? withLeanRoutes(app, createCartLeanRoutes(client, logger), logger, app.callback()) : app.callback());
  };

  beforeAll(async () => {
    engine = await createDbEngine('pglite://memory');
    cart = await buildCartService({ db: engine.forSchema(uniqueName('cartbatch')), currencyFormat: currencyFormats(store), logger });
    const url = await serve(cart.client, true);
    batched = createCartHttpClient(url, oneInFlight);
    alone = createCartHttpClient(url, { changeBatch: 1 });
    two = createCartHttpClient(url);
    // A cart client without `changeSelections`: the route makes the batch's changes one by one.
    const { changeSelections: _many, ...oneByOne } = cart.client;
    noting = createCartHttpClient(
      await serve(
        {
          ...oneByOne,
          changeSelection: (id, change) => {
            changedUnder.push(currentRequestId());
            return cart.client.changeSelection(id, change);
          },
        },
        true,
      ),
      oneInFlight,
    );
  }, 60_000);
  afterAll(async () => {
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    await engine?.close();
  });
  beforeEach(() => {
    paths.length = 0;
    changedUnder.length = 0;
  });

  const newSelection = async () => (await cart.client.createSelection({ currency: 'SEK', country: 'SE', language: 'sv' })).id;

  it("carries a line's ERP ids over HTTP, alone and batched, and refuses ids that are not strings", async () => {
    const external = { product: 'P-1', variation: 'V-1', size: 'ST-M', brand: '' };
    const id = await newSelection();
    // The first goes alone, the two behind it together.
    const [one, , three] = await Promise.all([
      batched.changeSelection(id, add('1-1', 1, { external })),
      batched.changeSelection(id, add('2-1', 1, { external: { ...external, variation: 'V-2' } })),
      batched.changeSelection(id, add('3-1', 1, { external: { ...external, variation: 'V-3' } })),
    ]);
    expect(paths.filter((p) => p === CART_CHANGES_PATH)).toHaveLength(1);
    expect(one.items[0]?.external).toEqual(external);
    expect(three.items.map((i) => i.external?.variation)).toEqual(['V-1', 'V-2', 'V-3']);
    await expect(
      alone.changeSelection(id, add('4-1', 1, { external: { ...external, size: 7 } } as unknown as Partial<LineItemData>)),
    ).rejects.toMatchObject({ code: 'REQUEST.INVALID' });
  });

  it('sends the changes made while one is in flight together, each with the outcome its own request gets', async () => {
    // The same changes, batched and one request each, on selections alike: the outcomes must be the same.
    const run = async (client: CartClient) => {
      const [a, b] = [await newSelection(), await newSelection()];
      const first = await client.changeSelection(a, add('1-1'));
      const line = first.items[0]!.line;
      const settled = await Promise.allSettled([
        client.changeSelection(a, add('1-1')), // goes alone: nothing in flight
        client.changeSelection(b, add('2-1', 3)),
        client.changeSelection(unknownSelection, add('1-1')), // bare 404: CART.SELECTION_NOT_FOUND
        client.changeSelection(a, { lines: [{ op: 'setLine', line: 'no-such-line', quantity: 1 }] }), // coded 404
        client.changeSelection(b, add('3-1', 0)), // 400: a quantity not positive
        client.changeSelection(b, add('4-1', 3, { quantityMultipleOf: 2 })), // 400: the quantity rule
        client.changeSelection(a, { lines: [{ op: 'setLine', line, quantity: 'x' }] } as unknown as SelectionChange), // 400: the change's shape
        client.changeSelection(a, { lines: [{ op: 'addLine', line, quantity: 5 }] }),
      ]);
      return outcomes(settled);
    };
    const one = await run(alone);
    expect(paths.filter((p) => p === CART_CHANGES_PATH)).toHaveLength(0);
    paths.length = 0;
    const together = await run(batched);
    expect(together).toEqual(one);
    // The first change of the burst alone, the seven behind it in one request.
    expect(paths.filter((p) => p === CART_CHANGES_PATH)).toHaveLength(1);
    expect(together.map((o) => ('code' in o ? o.code : 'ok'))).toEqual([
      'ok',
      'ok',
      'CART.SELECTION_NOT_FOUND',
      'CART.LINE_NOT_FOUND',
      'CART.INVALID_QUANTITY',
      'CART.QUANTITY_RULE',
      'REQUEST.INVALID',
      'ok',
    ]);
    expect(together.at(-1)).toMatchObject({ lines: [['1-1', 7]] });
  });

  it('makes a selection with its first change in one call, a refused change answered as the change route answers it (decision 157)', async () => {
    const made = await batched.createSelection({ currency: 'SEK', country: 'SE', language: 'sv', change: add('13-1', 2) });
    expect(made.items.map((i) => [i.item, i.quantity])).toEqual([['13-1', 2]]);
    expect(paths).toEqual(['/internal/cart/selections']);
    const refused = { currency: 'SEK', country: 'SE', language: 'sv', change: add('13-2', 3, { quantityMultipleOf: 2 }) };
    const alone = await cart.client.createSelection({ currency: 'SEK', country: 'SE', language: 'sv' });
    const [viaCreate, viaChange] = await Promise.allSettled([
      batched.createSelection(refused),
      batched.changeSelection(alone.id, refused.change),
    ]);
    expect(outcomes([viaCreate])).toEqual(outcomes([viaChange]));
    expect(outcomes([viaCreate])[0]).toMatchObject({ code: 'CART.QUANTITY_RULE' });
  });

  it('sends the new selections made while a call is in flight with the changes, in one call, each with the outcome its own request gets (decision 184)', async () => {
    const made = (change?: SelectionChange) => ({ currency: 'SEK', country: 'SE', language: 'sv', ...(change ? { change } : {}) });
    const run = async (client: CartClient) => {
      const id = await newSelection();
      const settled = await Promise.allSettled([
        client.changeSelection(id, add('15-1')), // goes alone: nothing in flight
        client.createSelection(made(add('15-2', 2))),
        client.changeSelection(id, add('15-3')),
        client.createSelection(made(add('15-4', 3, { quantityMultipleOf: 2 }))), // 400: the quantity rule
        client.createSelection({ ...made(), currency: 'sek' }), // 400: the command's shape
        client.createSelection(made()),
        client.changeSelection(unknownSelection, add('15-5')), // bare 404: CART.SELECTION_NOT_FOUND
      ]);
      // Each selection stored as its last answer left it.
      const last = new Map(settled.flatMap((s) => (s.status === 'fulfilled' ? [[s.value.id, s.value] as const] : [])));
      for (const [selectionId, selection] of last) expect(await cart.client.getSelection(selectionId)).toEqual(selection);
      return outcomes(settled);
    };
    const one = await run(alone);
    expect(paths.filter((p) => p === CART_BATCH_PATH)).toHaveLength(0);
    paths.length = 0;
    const together = await run(batched);
    expect(together).toEqual(one);
    // The first change alone, the six behind it in one request.
    expect(
      paths.filter(
        (p) => p.startsWith('/internal/cart/') && !p.startsWith('/internal/cart/selections/') && p !== '/internal/cart/selections',
      ),
    ).toEqual([CART_BATCH_PATH]);
    expect(together.map((o) => ('code' in o ? o.code : o.lines))).toEqual([
      [['15-1', 1]],
      [['15-2', 2]],
      [
        ['15-1', 1],
        ['15-3', 1],
      ],
      'CART.QUANTITY_RULE',
      'REQUEST.INVALID',
      [],
      'CART.SELECTION_NOT_FOUND',
    ]);
    // New selections only (no change among them) go the same way.
    paths.length = 0;
    const [, ...only] = await Promise.all([
      batched.changeSelection(unknownSelection, add('15-6')).catch(() => null),
      batched.createSelection(made()),
      batched.createSelection(made(add('15-7'))),
    ]);
    expect(only.map((s) => s.items.map((i) => i.item))).toEqual([[], ['15-7']]);
    expect(paths.filter((p) => p === CART_BATCH_PATH)).toHaveLength(1);
  });

  it('makes the new selections of a batch on the Koa router as on the lean route, and each on its own route on a cart without the batch route', async () => {
    const made = { currency: 'SEK', country: 'SE', language: 'sv', change: add('16-1', 2) };
    const koaOnly = createCartHttpClient(await serve(cart.client, false), oneInFlight);
    const oldApp = createHttpApp({ service: 'cart', logger, metrics: false });
    mountRouters(oldApp, [createCartInternalRouter(cart.client, logger)]);
    const oldCart = createCartHttpClient(
      await listen((req, res) => (req.url === CART_BATCH_PATH ? res.writeHead(404).end() : oldApp.callback()(req, res))),
      oneInFlight,
    );
    for (const client of [koaOnly, oldCart]) {
      paths.length = 0;
      const id = await newSelection();
      const [, first, second] = await Promise.all([
        client.changeSelection(id, add('16-2')),
        client.createSelection(made),
        client.createSelection({ ...made, change: add('16-3', 0) }).catch((error: unknown) => error),
      ]);
      expect(first.items.map((i) => [i.item, i.quantity])).toEqual([['16-1', 2]]);
      expect(second).toMatchObject({ code: 'CART.INVALID_QUANTITY' });
      expect(paths.filter((p) => p === CART_BATCH_PATH)).toHaveLength(1);
    }
    // The older cart made each on its own route after the batch route's bare 404.
    expect(paths.filter((p) => p === '/internal/cart/selections')).toHaveLength(2);
  });

  it('answers a new selection the same on the lean route as on the Koa router: 201, a refused change its coded error (decision 162)', async () => {
    const post = async (url: string, body: unknown) => {
      const answer = await fetch(`${url}/internal/cart/selections`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      // New ids each time: the selection's and its lines'.
      const text = (await answer.text()).replace(/"(id|line)":"[^"]*"/g, '"$1":"new"');
      return { status: answer.status, body: JSON.parse(text) as Record<string, unknown> };
    };
    const [lean, koa] = [await serve(cart.client, true), await serve(cart.client, false)];
    const made = { currency: 'SEK', country: 'SE', language: 'sv', change: add('14-1', 2) };
    const refused = { ...made, change: add('14-2', 3, { quantityMultipleOf: 2 }) };
    const malformed = { ...made, currency: 'sek' };
    for (const body of [made, refused, malformed]) expect(await post(lean, body)).toEqual(await post(koa, body));
    expect(await post(lean, made)).toMatchObject({ status: 201, body: { id: 'new', items: [{ item: '14-1', quantity: 2 }] } });
    expect(await post(lean, refused)).toMatchObject({ status: 400, body: { code: 'CART.QUANTITY_RULE' } });
  });

  it.each([
    ['one call', () => batched],
    ['two calls', () => two],
  ])("applies one selection's changes in the order they were made and loses none, %s in flight", async (_, client) => {
    const batched = client();
    const id = await newSelection();
    const line = (await batched.changeSelection(id, add('5-1'))).items[0]!.line;
    const settled = await Promise.all([
      batched.changeSelection(id, { lines: [{ op: 'setLine', line, quantity: 10 }] }),
      batched.changeSelection(id, { lines: [{ op: 'addLine', line, quantity: 2 }] }),
      batched.changeSelection(id, { lines: [{ op: 'setLine', line, quantity: 4 }] }),
      batched.changeSelection(id, { lines: [{ op: 'addLine', line, quantity: 3 }] }),
      ...Array.from({ length: 20 }, () => batched.changeSelection(id, add('6-1'))),
    ]);
    expect(settled.slice(0, 4).map((s) => s.items[0]!.quantity)).toEqual([10, 12, 4, 7]);
    expect((await batched.getSelection(id))!.items.map((i) => [i.item, i.quantity])).toEqual([
      ['5-1', 7],
      ['6-1', 20],
    ]);
  });

  it("sends a second call at once while one is in flight, never two holding one selection's changes (decision 184)", async () => {
    const [a, b] = [await newSelection(), await newSelection()];
    const line = (await cart.client.changeSelection(a, add('17-1'))).items[0]!.line;
    // The cart as its process serves it, a's first change answered late: a's next changes must wait for it.
    const app = createHttpApp({ service: 'cart', logger, metrics: false });
    mountRouters(app, [createCartInternalRouter(cart.client, logger)]);
    const handler = withLeanRoutes(app, createCartLeanRoutes(cart.client, logger), logger, app.callback());
    let slow = `/internal/cart/selections/${a}/changes`;
    const late = createCartHttpClient(
      await listen((req, res) => {
        if (req.url !== slow) return void handler(req, res);
        slow = '';
        setTimeout(() => void handler(req, res), 150);
      }),
    );
    paths.length = 0;
    const settled = await Promise.all([
      late.changeSelection(a, { lines: [{ op: 'setLine', line, quantity: 10 }] }), // at once
      late.changeSelection(b, add('17-2')), // at once: a second call
      late.changeSelection(a, { lines: [{ op: 'addLine', line, quantity: 2 }] }), // waits: two in flight
      late.createSelection({ currency: 'SEK', country: 'SE', language: 'sv', change: add('17-3') }),
      late.changeSelection(a, { lines: [{ op: 'setLine', line, quantity: 4 }] }),
      late.changeSelection(b, add('17-2')),
    ]);
    expect(paths.slice(0, 2).sort()).toEqual([`/internal/cart/selections/${a}/changes`, `/internal/cart/selections/${b}/changes`].sort());
    expect(paths.length).toBeLessThan(6);
    expect([settled[0], settled[2], settled[4]].map((s) => s.items[0]!.quantity)).toEqual([10, 12, 4]);
    expect([settled[1], settled[5]].map((s) => s.items[0]!.quantity)).toEqual([1, 2]);
    expect(settled[3].items.map((i) => i.item)).toEqual(['17-3']);
    expect((await cart.client.getSelection(a))!.items[0]!.quantity).toBe(4);
  });

  it("makes a batch's changes one by one, each under its own request's id, for a cart client without changeSelections", async () => {
    const ids = await Promise.all([newSelection(), newSelection(), newSelection()]);
    changedUnder.length = 0;
    await Promise.all(ids.map((id, n) => withRequestContext({ requestId: `req-${n}` }, () => noting.changeSelection(id, add('7-1')))));
    expect(paths.filter((p) => p === CART_CHANGES_PATH)).toHaveLength(1);
    expect(changedUnder).toEqual(['req-0', 'req-1', 'req-2']);
  });

  it('answers a batch the same on the Koa router as on the lean route (a batch over the lean route’s body limit goes there)', async () => {
    const koaOnly = createCartHttpClient(await serve(cart.client, false), oneInFlight);
    const ids = await Promise.all([newSelection(), newSelection()]);
    const settled = outcomes(
      await Promise.allSettled([
        koaOnly.changeSelection(ids[0]!, add('8-1')),
        koaOnly.changeSelection(ids[1]!, add('8-1', 2)),
        koaOnly.changeSelection(unknownSelection, add('8-1')),
        koaOnly.changeSelection(ids[1]!, add('9-1', 0)),
      ]),
    );
    expect(paths.filter((p) => p === CART_CHANGES_PATH)).toHaveLength(1);
    expect(settled.map((o) => ('code' in o ? o.code : o.lines))).toEqual([
      [['8-1', 1]],
      [['8-1', 2]],
      'CART.SELECTION_NOT_FOUND',
      'CART.INVALID_QUANTITY',
    ]);
  });

  it('sends each change on its own route to a cart without the batch route', async () => {
    // An older cart: its app has no batch route, and answers that path with a bare 404, applying nothing.
    const oldApp = createHttpApp({ service: 'cart', logger, metrics: false });
    mountRouters(oldApp, [createCartInternalRouter(cart.client, logger)]);
    const oldCart = createCartHttpClient(
      await listen((req, res) => (req.url === CART_CHANGES_PATH ? res.writeHead(404).end() : oldApp.callback()(req, res))),
      oneInFlight,
    );
    const ids = await Promise.all([newSelection(), newSelection(), newSelection()]);
    paths.length = 0;
    const settled = await Promise.all(ids.map((id) => oldCart.changeSelection(id, add('10-1', 2))));
    expect(settled.map((s) => s.items.map((i) => i.quantity))).toEqual([[2], [2], [2]]);
    expect(paths.filter((p) => p === CART_CHANGES_PATH)).toHaveLength(1);
    expect(paths.filter((p) => p.endsWith('/changes') && p !== CART_CHANGES_PATH)).toHaveLength(3);
  });

  it('answers a batched change or new selection whose database did not answer in time the 503 its own request gets (decision 132)', async () => {
    const timedOut = () => Promise.reject(new Error('Query read timeout'));
    const stalled = createCartHttpClient(
      await serve(
        {
          ...cart.client,
          createSelection: timedOut,
          changeSelection: timedOut,
          createSelections: async (commands) => commands.map(() => ({ status: 'rejected', reason: new Error('Query read timeout') })),
          changeSelections: async (changes) => changes.map(() => ({ status: 'rejected', reason: new Error('Query read timeout') })),
        },
        true,
      ),
      oneInFlight,
    );
    const id = await newSelection();
    const settled = await Promise.allSettled([
      stalled.changeSelection(id, add('18-1')), // alone
      stalled.changeSelection(id, add('18-2')),
      stalled.createSelection({ currency: 'SEK', country: 'SE', language: 'sv', change: add('18-3') }),
    ]);
    expect(paths.filter((p) => p === CART_BATCH_PATH)).toHaveLength(1);
    expect(settled.map((s) => (s as PromiseRejectedResult).reason)).toMatchObject([
      { kind: 'unavailable', fields: { server: 'temporarily unavailable' } },
      { kind: 'unavailable', fields: { server: 'temporarily unavailable' } },
      { kind: 'unavailable', fields: { server: 'temporarily unavailable' } },
    ]);
  });

  it('fails every change of a batch whose request fails, as each request would', async () => {
    const ids = await Promise.all([newSelection(), newSelection(), newSelection()]);
    const failing = createCartHttpClient(
      await listen((req, res) => {
        if (req.url === CART_CHANGES_PATH)
          res.writeHead(503, { 'content-type': 'application/json' }).end('{"errors":{"cart":"shutting down"}}');
        else setTimeout(() => res.writeHead(503).end(), 20);
      }),
      oneInFlight,
    );
    const settled = await Promise.allSettled(ids.map((id) => failing.changeSelection(id, add('11-1'))));
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(settled.map((s) => (s as PromiseRejectedResult).reason)).toMatchObject([
      { kind: 'unavailable' },
      { kind: 'unavailable', fields: { cart: 'shutting down' } },
      { kind: 'unavailable', fields: { cart: 'shutting down' } },
    ]);
  });
});
