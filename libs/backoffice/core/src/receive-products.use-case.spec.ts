import { ProductUpsertReceived, BackofficeTopics } from '@commerce/backoffice-contracts';
import { InvalidEntityError } from './backoffice.errors';
import { receiveProducts } from './receive-products.use-case';
import type { EventEnvelope } from '@commerce/shared-events';
import type { ReceivedEntity, UpsertStore } from './upsert-store.port';

function recordingStore(): UpsertStore & {
  batches: { entity: string; items: ReceivedEntity[]; events: EventEnvelope[]; requestId?: string }[];
} {
  const batches: { entity: string; items: ReceivedEntity[]; events: EventEnvelope[]; requestId?: string }[] = [];
  return {
    batches,
    saveBatch: async (entity, items, events, requestId) => void batches.push({ entity, items, events, requestId }),
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
