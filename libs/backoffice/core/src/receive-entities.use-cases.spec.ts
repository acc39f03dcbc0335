import { BackofficeTopics, DeliveryWindowUpsertReceived, ProductUpsertReceived, SizeUpsertReceived } from '@commerce/erp-contracts';
import { InvalidEntityError } from './backoffice.errors';
import { receiveEntities, receiveProducts, RECEIVE_CHUNK } from './receive-entities.use-cases';
import type { EventEnvelope } from '@commerce/shared-events';
import type { UpsertStore } from './upsert-store.port';

/** What the store keeps of each event: the entity its payload holds under the entity's name. */
interface ReceivedEntity {
  externalId: string;
  data: unknown;
}

function recordingStore(): UpsertStore & {
  batches: { entity: string; items: ReceivedEntity[]; events: EventEnvelope[]; requestId?: string }[];
} {
  const batches: { entity: string; items: ReceivedEntity[]; events: EventEnvelope[]; requestId?: string }[] = [];
  const saveBatch: UpsertStore['saveBatch'] = async (entity, events, requestId) => {
    const items = events.map((e) => {
      const data = (e.payload as Record<string, { id: string }>)[entity]!;
      return { externalId: data.id, data };
    });
    batches.push({ entity, items, events, requestId });
  };
  return {
    batches,
    saveBatch,
    // As a transaction would: the batch counts as saved once every chunk is made; one refused drops them all.
    async saveChunks(entity, chunks, requestId) {
      const events: EventEnvelope[] = [];
      for await (const chunk of chunks) events.push(...chunk);
      await saveBatch(entity, events, requestId);
    },
  };
}

const product = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  sku: `SKU-${id}`,
  variations: [{ id: `${id}-1`, sizes: [{ id: 's1', qty: '3' }] }],
  ...extra,
});

describe('receiveProducts', () => {
  it('saves every product of a valid batch with one ProductUpsertReceived each, in one call', async () => {
    const store = recordingStore();
    const result = await receiveProducts({ store }, [product('1'), product('2')], 'req-1');

    expect(result).toEqual({ received: 2 });
    expect(store.batches).toHaveLength(1);
    const [batch] = store.batches;
    expect(batch?.entity).toBe('product');
    expect(batch?.requestId).toBe('req-1');
    expect(batch?.items.map((i) => i.externalId)).toEqual(['1', '2']);
    expect(batch?.events.map((e) => [e.topic, e.key, e.type])).toEqual([
      [BackofficeTopics.UPSERT, 'product:1', 'ProductUpsertReceived'],
      [BackofficeTopics.UPSERT, 'product:2', 'ProductUpsertReceived'],
    ]);
    const parsed = ProductUpsertReceived.parse(batch?.events[0] as Parameters<typeof ProductUpsertReceived.parse>[0]);
    expect(parsed.payload.product.variations?.[0]?.sizes?.[0]?.qty).toBe('3');
    expect(parsed.requestId).toBe('req-1');
  });

  it('when the second product lacks a variation id, refuses the whole batch naming products[1], its id and the field', async () => {
    const store = recordingStore();
    const bad = product('42', { variations: [{ sku: 'x' }] });

    const error = await receiveProducts({ store }, [product('1'), bad]).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(InvalidEntityError);
    expect((error as InvalidEntityError).code).toBe('BACKOFFICE.INVALID_ENTITY');
    expect((error as InvalidEntityError).reason).toBe('products[1] (id 42): variations.0.id is required');
    expect((error as InvalidEntityError).fields).toEqual({ 'products[1].variations.0.id': 'is required' });
    expect(store.batches).toHaveLength(0);
  });

  it('refuses a batch whose bad product is in a later chunk, naming its position in the whole batch', async () => {
    const store = recordingStore();
    const at = RECEIVE_CHUNK * 2 + 3;
    const batch = Array.from({ length: RECEIVE_CHUNK * 3 }, (_, i) =>
      i === at ? product('bad', { variations: [{ sku: 'x' }] }) : product(`p${i}`),
    );

    const error = await receiveProducts({ store }, batch).catch((e: unknown) => e);

    expect((error as InvalidEntityError).reason).toBe(`products[${at}] (id bad): variations.0.id is required`);
    expect(store.batches).toHaveLength(0);
  });

  it('keeps a batch of several chunks whole and in order, as one batch', async () => {
    const store = recordingStore();
    const batch = Array.from({ length: RECEIVE_CHUNK * 2 + 7 }, (_, i) => product(`p${i}`));

    await expect(receiveProducts({ store }, batch, 'req-c')).resolves.toEqual({ received: batch.length });

    expect(store.batches).toHaveLength(1);
    expect(store.batches[0]?.items.map((i) => i.externalId)).toEqual(batch.map((p) => p.id));
  });

  it('names a field given the wrong kind of value and an empty id', async () => {
    const store = recordingStore();
    const wrongKind = await receiveProducts({ store }, [{ id: '7', sku: { nested: 'x' } }]).catch((e: unknown) => e);
    expect((wrongKind as InvalidEntityError).reason).toBe('products[0] (id 7): sku must be text');

    const emptyId = await receiveProducts({ store }, [{ id: '' }]).catch((e: unknown) => e);
    expect((emptyId as InvalidEntityError).reason).toBe('products[0]: id must not be empty');
    expect(store.batches).toHaveLength(0);
  });

  it('accepts an empty batch without writing anything', async () => {
    const store = recordingStore();
    await expect(receiveProducts({ store }, [])).resolves.toEqual({ received: 0 });
    expect(store.batches).toHaveLength(0);
  });
});

describe('receiveEntities', () => {
  it('keeps a batch of sizes with one SizeUpsertReceived each, keyed size:<id>, payload {entity, size}', async () => {
    const store = recordingStore();
    const sizes = [{ id: 'M', sku: 'S-M', sizetable: { id: 'T1', stockdivisor: '1' } }, { id: 'L' }];

    await expect(receiveEntities({ store }, 'size', sizes, 'req-2')).resolves.toEqual({ received: 2 });

    const [batch] = store.batches;
    expect(batch?.entity).toBe('size');
    expect(batch?.items).toEqual([
      { externalId: 'M', data: sizes[0] },
      { externalId: 'L', data: { id: 'L' } },
    ]);
    expect(batch?.events.map((e) => [e.topic, e.key, e.type, e.version])).toEqual([
      [BackofficeTopics.UPSERT, 'size:M', 'SizeUpsertReceived', 1],
      [BackofficeTopics.UPSERT, 'size:L', 'SizeUpsertReceived', 1],
    ]);
    const event = SizeUpsertReceived.parse(batch?.events[0] as EventEnvelope);
    expect(event.payload).toEqual({ entity: 'size', size: sizes[0] });
  });

  it('stores and publishes the typed values of the spec: ints as numbers, booleans as booleans', async () => {
    const store = recordingStore();
    await receiveEntities({ store }, 'deliverywindow', [
      { id: 'DW1', atonce: '1', variations: [{ id: 'V1', productlimit: '10', variationlimit: '0' }] },
    ]);
    const expected = { id: 'DW1', atonce: true, variations: [{ id: 'V1', productlimit: 10, variationlimit: 0 }] };
    expect(store.batches[0]?.items[0]?.data).toEqual(expected);
    expect(DeliveryWindowUpsertReceived.parse(store.batches[0]?.events[0] as EventEnvelope).payload.deliverywindow).toEqual(expected);
  });

  it.each([
    [
      'pricelist',
      'pricelists',
      { id: 'P1', currency: 'eur' },
      'pricelists[0] (id P1): currency must be a 3-letter upper-case currency code, e.g. EUR',
    ],
    [
      'pricelist',
      'pricelists',
      { id: 'P1', items: [{ id: 'A', price: '10.999' }] },
      'pricelists[0] (id P1): items.0.price must be a decimal number ≥ 0 with at most 2 decimals, e.g. 19.90',
    ],
    [
      'pricelist',
      'pricelists',
      { id: 'P1', items: [{ id: 'A', variation: { id: 'A1', priceb: '-1' } }] },
      'pricelists[0] (id P1): items.0.variation.priceb must be a decimal number ≥ 0 with at most 2 decimals, e.g. 19.90',
    ],
    ['market', 'markets', { id: ' ' }, 'markets[0]: id must not be empty'],
    ['warehouse', 'warehouses', { description: 'Main' }, 'warehouses[0]: id is required'],
    [
      'size',
      'sizes',
      { id: 'M', sizetable: { id: 'T', stockdivisor: '0' } },
      'sizes[0] (id M): sizetable.stockdivisor must be a whole number ≥ 1',
    ],
    ['deliverywindow', 'deliverywindows', { id: 'D', atonce: 'yes' }, 'deliverywindows[0] (id D): atonce must be true, false, 1 or 0'],
    [
      'deliverywindow',
      'deliverywindows',
      { id: 'D', startdate: '2026-02-30' },
      'deliverywindows[0] (id D): startdate must be an ISO 8601 date or date-time, e.g. 2026-03-01 or 2026-03-01T08:00:00+01:00',
    ],
    [
      'deliverywindow',
      'deliverywindows',
      { id: 'D', startdate: '2026-03-02', stopdate: '2026-03-01T23:59:59' },
      'deliverywindows[0] (id D): stopdate must not be before startdate',
    ],
    [
      'deliverywindow',
      'deliverywindows',
      { id: 'D', variationsremove: [{ id: 'V', productlimit: '2.5' }] },
      'deliverywindows[0] (id D): variationsremove.0.productlimit must be a whole number from 0 to 2147483647',
    ],
    [
      'product',
      'products',
      { id: 'P', variations: [{ id: 'V', sizes: [{ id: 'S', warehouseitems: [{ id: 'W', qty: '-3' }] }] }] },
      'products[0] (id P): variations.0.sizes.0.warehouseitems.0.qty must be a whole number ≥ 0',
    ],
    [
      'product',
      'products',
      { id: 'P', variations: [{ id: 'V', displays: [{ orderdenominator: '1.5' }] }] },
      'products[0] (id P): variations.0.displays.0.orderdenominator must be a whole number ≥ 0',
    ],
  ] as const)('refuses a bad %s, naming %s, the index, the id and the field', async (entity, _list, bad, reason) => {
    const store = recordingStore();
    const error = await receiveEntities({ store }, entity, [bad]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidEntityError);
    expect((error as InvalidEntityError).reason).toBe(reason);
    expect(store.batches).toHaveLength(0);
  });

  it('accepts the forms the spec allows: dates with or without time and offset, prices without decimals, booleans as words', async () => {
    const store = recordingStore();
    const windows = [
      { id: 'A', startdate: '2026-03-01', stopdate: '2026-03-01T18:00:00+01:00', atonce: 'false' },
      { id: 'B', startdate: '2026-03-01T08:00', stopdate: '2026-04-01T08:00:00.000Z', atonce: 'true' },
    ];
    await receiveEntities({ store }, 'deliverywindow', windows);
    await receiveEntities({ store }, 'pricelist', [{ id: 'P', currency: 'SEK', items: [{ id: 'X', price: '0', priceb: '1999.5' }] }]);
    expect(store.batches.map((b) => b.items.length)).toEqual([2, 1]);
    expect(store.batches[0]?.items.map((i) => (i.data as { atonce: unknown }).atonce)).toEqual([false, true]);
  });
});

describe('receiveEntities for accounts', () => {
  const hasher = { hash: async (p: string) => `scrypt$c2FsdA==$${Buffer.from(p).toString('base64')}`, verify: async () => false };
  const account = { id: 'A1', buyers: [{ id: 'B1', password: 'pw-1' }, { id: 'B2' }] };

  it('stores and publishes each buyer’s password as its hash, never in clear', async () => {
    const store = recordingStore();
    await receiveEntities({ store, hasher }, 'account', [account]);

    const expected = {
      id: 'A1',
      buyers: [{ id: 'B1', passwordhash: `scrypt$c2FsdA==$${Buffer.from('pw-1').toString('base64')}` }, { id: 'B2' }],
    };
    expect(store.batches[0]?.items[0]?.data).toEqual(expected);
    expect(store.batches[0]?.events[0]?.payload).toEqual({ entity: 'account', account: expected });
  });

  it('without a hasher, stores nothing rather than a password in clear', async () => {
    const store = recordingStore();
    await expect(receiveEntities({ store }, 'account', [account])).rejects.toThrow(/password hasher/);
    expect(store.batches).toHaveLength(0);
  });
});
