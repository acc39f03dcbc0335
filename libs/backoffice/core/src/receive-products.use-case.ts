import { ProductUpsertReceived, SoapProductSchema, upsertKey } from '@commerce/backoffice-contracts';
import { validateBatch } from './entity-batch.validation';
import type { UpsertStore } from './upsert-store.port';

export interface ReceiveProductsDeps {
  store: UpsertStore;
}

export interface ReceiveResult {
  received: number;
}

/**
 * `products_Update`: validate the whole batch, then keep the products and one ProductUpsertReceived each
 * in one transaction. Resolving means the batch is durable, so the SOAP reply may say OK; `catalog`
 * applies the products when it consumes the events.
 */
export async function receiveProducts(deps: ReceiveProductsDeps, products: readonly unknown[], requestId?: string): Promise<ReceiveResult> {
  const valid = validateBatch('products', SoapProductSchema, products);
  if (valid.length === 0) return { received: 0 };
  const events = valid.map((product) =>
    ProductUpsertReceived.create(upsertKey('product', product.id), { entity: 'product', product }, requestId),
  );
  await deps.store.saveBatch(
    'product',
    valid.map((product) => ({ externalId: product.id, data: product })),
    events,
    requestId,
  );
  return { received: valid.length };
}
