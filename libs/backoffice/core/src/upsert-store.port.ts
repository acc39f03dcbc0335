import type { UpsertEntity } from '@commerce/backoffice-contracts';
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
}
