import type { UpsertEntity } from '@commerce/erp-contracts';
import type { EventEnvelope } from '@commerce/shared-events';

/** Keeps what the ERP sent. */
export interface UpsertStore {
  /**
   * Writes the entities and their outbox events in ONE transaction: either all are durable when it
   * resolves, or nothing was written. Each event is an `<Entity>UpsertReceived` whose payload holds its
   * entity under the entity's name (`{entity: 'product', product: {id, …}}`): that entity is what is
   * stored, by its id, so a batch travels to the database once.
   */
  saveBatch(entity: UpsertEntity, events: EventEnvelope[], requestId?: string): Promise<void>;
  /**
   * The same for a batch made while it is written (decision 79): `chunks` is iterated inside the store's one
   * transaction and each chunk written as soon as it is made, so the database stores a chunk while the
   * next one is validated and serialised. Whole or nothing: an error thrown by the iteration (a refused
   * entity) or by a write rolls every chunk back and is rethrown (the iteration's own error first: the rest
   * of the chunks is still made, unwritten, after a failed write); it resolves only once all is committed.
   * The chunks may come asynchronously (decision 91: as the request's parse builds them).
   */
  saveChunks(entity: UpsertEntity, chunks: Iterable<EventEnvelope[]> | AsyncIterable<EventEnvelope[]>, requestId?: string): Promise<void>;
}
