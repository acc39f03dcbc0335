import { createDbEngine, type DbEngine } from '@commerce/shared-db';
import { HARNESS_USER, testPasswordHash, startSoapService, type SoapServiceHarness } from '../testing/soap-service.harness';
import { soapRequest } from '../testing/soap-request';
import { DEFAULT_XML_LIMITS } from './xml-prescan';
import { StreamedUpdate } from './soap-streamed-update';
import { xmlListToEntities, type XmlNode } from './soap-xml.mapper';

// Decision 91: an `*_Update`'s entities handed to the store as the parse builds them. Every answer and every
// stored row must be what the request got when it was parsed whole first.

const el = (tag: string, ...children: (string | [string, string])[]): string =>
  `<ns1:${tag}>${children.map((c) => (typeof c === 'string' ? c : el(c[0], c[1]))).join('')}</ns1:${tag}>`;

const product = (id: string, qty = '2', extra = ''): string =>
  el('product', ['id', id], ['name', `Product ${id}`], extra, el('variations', el('variation', ['id', `${id}-V`], el('sizes', el('size', ['id', 'M'], ['qty', qty])))));

const seven = (at: (k: number) => string | undefined = () => undefined): string =>
  Array.from({ length: 7 }, (_, k) => at(k) ?? product(`P${k}`)).join('');

describe('StreamedUpdate', () => {
  const xml = soapRequest('products_Update', el('products', seven()), { ...HARNESS_USER });

  it('hands the entities over in parts while it parses, and the handler takes exactly that batch', async () => {
    let parsed = false;
    const seen: { size: number; parsed: boolean }[] = [];
    let all: unknown[] = [];
    const streamed = new StreamedUpdate(
      (element) =>
        element === 'products_Update'
          ? async (parts) => {
              for await (const part of parts) {
                seen.push({ size: part.length, parsed });
                all = [...all, ...part];
              }
              return all.length;
            }
          : undefined,
      3,
    );
    const { operation, payload } = await streamed.parse(xml, DEFAULT_XML_LIMITS);
    parsed = true;
    expect(operation).toBe('products_Update');
    // The parts before the last one reached the store before the parse was over.
    expect(seen.slice(0, 2)).toEqual([
      { size: 3, parsed: false },
      { size: 3, parsed: false },
    ]);
    // What the handler receives: the entities of the parsed tree, the very objects handed over.
    const taken = await streamed.take(xmlListToEntities('Product', 'product', (payload as Record<string, XmlNode>)['products']));
    await expect(taken?.outcome).resolves.toBe(7);
    expect(seen.map((s) => s.size)).toEqual([3, 3, 1]);
  });

  it('gives the stream up when the handler receives other entities, and hands nothing when the start declines', async () => {
    let ended: unknown;
    const streamed = new StreamedUpdate(
      () => async (parts) => {
        try {
          for await (const part of parts) void part;
        } catch (error) {
          ended = error;
          throw error;
        }
      },
      2,
    );
    await streamed.parse(xml, DEFAULT_XML_LIMITS);
    expect(await streamed.take([{ id: 'other' }])).toBeUndefined();
    expect(String(ended)).toContain('given up');

    let started = 0;
    const declined = new StreamedUpdate(() => {
      started++;
      return undefined;
    }, 2);
    await declined.parse(xml, DEFAULT_XML_LIMITS);
    expect(started).toBe(1);
    expect(await declined.take([])).toBeUndefined();
  });
});

describe('an *_Update handed over while it is parsed answers and stores what the whole parse did', () => {
  let engine: DbEngine;
  let streamed: SoapServiceHarness;
  let whole: SoapServiceHarness;

  beforeAll(async () => {
    engine = await createDbEngine('pglite://memory');
    const passwordHash = await testPasswordHash(HARNESS_USER.password);
    // Parts of two entities: a batch of seven is four parts, three of them written before the parse ends.
    streamed = await startSoapService(engine, passwordHash, { streamPartSize: 2 });
    whole = await startSoapService(engine, passwordHash, { streamPartSize: 0 });
  }, 60_000);

  afterAll(async () => {
    await streamed?.close();
    await whole?.close();
    await engine?.close();
  });

  const stored = async (h: SoapServiceHarness) => {
    const { received, outbox } = await h.rows();
    return {
      received: received.map((r) => [r['entity'], r['external_id'], r['payload']]),
      outbox: outbox.map((e) => [e.type, e.key, e.payload]),
    };
  };

  it.each([
    ['seven valid products', 'products_Update', el('products', seven())],
    ['an invalid product in the third part (a refusal after two parts were written)', 'products_Update', el('products', seven((k) => (k === 5 ? product('P5', '2.5') : undefined)))],
    ['a document broken after the batch', 'products_Update', `${el('products', seven())}<ns1:oops>`],
    ['a stray element after the items', 'products_Update', el('products', seven(), el('sise', ['id', 'L']))],
    ['a field repeated in the fourth part (the tree and the mapper take over)', 'products_Update', el('products', seven((k) => (k === 6 ? product('P6', '1', el('name', 'twice')) : undefined)))],
    ['two lists', 'products_Update', el('products', seven()) + el('products', product('Q'))],
    ['an element beside the list', 'products_Update', el('products', seven()) + el('extra', 'x')],
    ['an empty list', 'products_Update', '<ns1:products/>'],
    ['another operation', 'markets_Update', el('markets', ...['EU', 'US', 'SE'].map((id) => el('market', ['id', id], ['name', id])))],
  ])('%s', async (_name, op, inner) => {
    const [a, b] = [await streamed.call(op, inner), await whole.call(op, inner)];
    expect([a.status, a.body]).toEqual([b.status, b.body]);
    expect(await stored(streamed)).toEqual(await stored(whole));
  });

  it('keeps nothing of a refused batch, and a valid one is stored whole and in order', async () => {
    const before = (await stored(streamed)).received.length;
    const refused = await streamed.call('products_Update', el('products', seven((k) => (k === 6 ? product('P6', 'x') : undefined))));
    expect(refused.status).toBe(500);
    expect(refused.body).toContain('products[6] (id P6)');
    expect((await stored(streamed)).received.length).toBe(before);

    const ids = Array.from({ length: 9 }, (_, k) => `R${k}`);
    const ok = await streamed.call('products_Update', el('products', ...ids.map((id) => product(id))));
    expect(ok.status).toBe(200);
    expect((await stored(streamed)).received.slice(before).map((r) => r[1])).toEqual(ids);
  });
});
