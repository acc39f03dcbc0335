import {
  SoapAccountSchema,
  UpsertReceivedEvents,
  type ReceivableEntity,
  type ReceivedAccount,
  type SoapAccount,
} from '@commerce/erp-contracts';
import type { EventEnvelope } from '@commerce/shared-events';
import type { z } from 'zod';
import { validateBatch } from './entity-batch.validation';
import type { UpsertStore } from './upsert-store.port';

export interface ReceiveEntitiesDeps {
  store: UpsertStore;
  /**
   * Hashes the buyers' passwords of `accounts_Update` (only that operation needs it): argon2id with the account
   * service's cost, which verifies them (decision 54).
   */
  hasher?: { hash(plain: string): Promise<string> };
}

export interface ReceiveResult {
  received: number;
}

interface Intake {
  /** The name of the entity's batch in a request (the spec's parameter element), which faults point into. */
  list: string;
  /** What the ERP sends, when it differs from what is stored and published (the event's schema). */
  input?: z.ZodType<{ id: string }>;
  /** Turns a valid entity into what is stored and published. */
  prepare?: (entity: never, deps: ReceiveEntitiesDeps) => Promise<{ id: string }>;
}

/** A buyer's password is kept only as its hash: never in clear in the stored batch or on the bus. */
async function hashBuyerPasswords(account: SoapAccount, deps: ReceiveEntitiesDeps): Promise<ReceivedAccount> {
  if (!account.buyers?.some((b) => b.password !== undefined)) return account as ReceivedAccount;
  const hasher = deps.hasher;
  if (!hasher) throw new Error('accounts_Update needs a password hasher for the buyers’ passwords');
  const buyers = await Promise.all(
    account.buyers.map(async ({ password, ...buyer }) =>
      password === undefined ? buyer : { ...buyer, passwordhash: await hasher.hash(password) },
    ),
  );
  return { ...account, buyers };
}

export const UPSERT_INTAKES = {
  product: { list: 'products' },
  size: { list: 'sizes' },
  pricelist: { list: 'pricelists' },
  market: { list: 'markets' },
  warehouse: { list: 'warehouses' },
  deliverywindow: { list: 'deliverywindows' },
  account: { list: 'accounts', input: SoapAccountSchema, prepare: hashBuyerPasswords },
  customer: { list: 'customers' },
  salesrep: { list: 'salesreps' },
  paymentterms: { list: 'paymentterms' },
  shippingterms: { list: 'shippingterms' },
  order: { list: 'orders' },
  invoice: { list: 'invoices' },
} as const satisfies Record<ReceivableEntity, Intake>;

/**
 * How many entities the batch is validated, turned into events and handed to the store at a time: the
 * store writes one chunk while the next is made (decision 79). ~100 products are ~0.4 MB of JSON.
 */
export const RECEIVE_CHUNK = 100;

/**
 * Every `*_Update`: validate the whole batch against the entity's contract, then keep the entities and
 * one `<Entity>UpsertReceived` each in one transaction. Resolving means the batch is durable, so the
 * SOAP reply may say OK; the owning service applies the entities when it consumes the events. The batch
 * is validated and written in chunks inside that one transaction (decision 79): a refused entity anywhere
 * rolls back whatever chunks were already written, with the same Fault as before.
 */
export async function receiveEntities(
  deps: ReceiveEntitiesDeps,
  entity: ReceivableEntity,
  batch: readonly unknown[] | AsyncIterable<readonly unknown[]>,
  requestId?: string,
): Promise<ReceiveResult> {
  const event = UpsertReceivedEvents[entity];
  const intake: Intake = UPSERT_INTAKES[entity];
  const schema = intake.input ?? event.entitySchema;
  const prepare = intake.prepare as ((e: { id: string }, d: ReceiveEntitiesDeps) => Promise<{ id: string }>) | undefined;
  // One entity kind per call; the union of the events' signatures is too wide for TypeScript to call.
  // An entity the event's own schema has just parsed is not parsed again (a 1,000-product batch's second
  // validation was a tenth of its time); one read from another schema and prepared is.
  const envelopeOf = (intake.input || prepare ? event.envelopeOf : event.envelopeOfParsed) as (
    data: { id: string },
    requestId?: string,
  ) => EventEnvelope;
  if (!isArray(batch)) return receiveParts(entity, schema, intake.list, envelopeOf, deps, batch, requestId, prepare);
  const entities = batch;
  if (prepare) {
    // Prepared entities (accounts: passwords hashed, asynchronously) are validated whole first, as before.
    const valid: { id: string }[] = validateBatch(intake.list, schema, entities);
    if (valid.length === 0) return { received: 0 };
    const ready = await Promise.all(valid.map((e) => prepare(e, deps)));
    await deps.store.saveBatch(
      entity,
      ready.map((data) => envelopeOf(data, requestId)),
      requestId,
    );
    return { received: ready.length };
  }
  if (entities.length === 0) return { received: 0 };
  return receiveParts(entity, schema, intake.list, envelopeOf, deps, slicesOf(entities, RECEIVE_CHUNK), requestId, undefined);
}

/** `entities` in consecutive slices of `size`: a whole batch as the parts `receiveParts` takes. */
function* slicesOf(entities: readonly unknown[], size: number): Generator<readonly unknown[]> {
  for (let at = 0; at < entities.length; at += size) yield entities.slice(at, at + size);
}

const isArray = (batch: readonly unknown[] | AsyncIterable<readonly unknown[]>): batch is readonly unknown[] => Array.isArray(batch);

/**
 * A batch in parts, as the request's parse builds them (decision 91) or as a whole batch's slices: each part
 * is validated (its offset the entities before it, so a Fault names the entity's position in the whole batch)
 * and turned into its events as it comes, and the store writes it in the same one transaction while the next
 * part is made (decision 79). Prepared entities (accounts) are gathered whole first and take the array path.
 */
async function receiveParts(
  entity: ReceivableEntity,
  schema: z.ZodType<{ id: string }>,
  list: string,
  envelopeOf: (data: { id: string }, requestId?: string) => EventEnvelope,
  deps: ReceiveEntitiesDeps,
  parts: Iterable<readonly unknown[]> | AsyncIterable<readonly unknown[]>,
  requestId: string | undefined,
  prepare: unknown,
): Promise<ReceiveResult> {
  if (prepare) {
    const whole: unknown[] = [];
    for await (const part of parts) whole.push(...part);
    return receiveEntities(deps, entity, whole, requestId);
  }
  let received = 0;
  async function* chunks(): AsyncGenerator<EventEnvelope[]> {
    for await (const part of parts) {
      const valid: { id: string }[] = validateBatch(list, schema, part, { offset: received });
      received += valid.length;
      if (valid.length > 0) yield valid.map((data) => envelopeOf(data, requestId));
    }
  }
  await deps.store.saveChunks(entity, chunks(), requestId);
  return { received };
}

/** `products_Update`. */
export const receiveProducts = (deps: ReceiveEntitiesDeps, products: readonly unknown[], requestId?: string): Promise<ReceiveResult> =>
  receiveEntities(deps, 'product', products, requestId);
