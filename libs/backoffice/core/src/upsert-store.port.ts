import type { UpsertEntity } from '@commerce/backoffice-contracts';
import type { EventEnvelope } from '@commerce/shared-events';

export interface ReceivedEntity {
  /** The id the ERP gave the entity. */
  externalId: string;
  data: unknown;
}

/** Keeps what the ERP sent. */
export interface UpsertStore {
  /**
   * Writes the entities and their outbox events in ONE transaction: either all are durable when it
   * resolves, or nothing was written.
   */
  saveBatch(entity: UpsertEntity, items: ReceivedEntity[], events: EventEnvelope[], requestId?: string): Promise<void>;
}
