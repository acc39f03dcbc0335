import type { UpsertEntity } from '@commerce/backoffice-contracts';

/** An event to publish through the outbox; structurally the bus's EventEnvelope (core stays free of bus code). */
export interface OutboxEvent {
  id: string;
  topic: string;
  key: string;
  type: string;
  version: number;
  occurredAt: string;
  requestId?: string;
  payload: unknown;
}

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
  saveBatch(entity: UpsertEntity, items: ReceivedEntity[], events: OutboxEvent[], requestId?: string): Promise<void>;
}
