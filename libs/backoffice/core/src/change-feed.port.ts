import type { ChangeEventMission, ChangeEventType } from '@commerce/erp-contracts';

/** A change event as the feed keeps it; `data` is `{<data element>: entity}` in the entity's SOAP (JSON) shape. */
export interface ChangeEvent {
  /** Increasing; a decimal string, as it travels in SOAP. */
  id: string;
  type: ChangeEventType;
  /** The changed entity's id (the ERP's id where it has one). */
  entry: string;
  mission: ChangeEventMission;
  /** When the change happened (the owner's event), ISO 8601. */
  date: string;
  /** The market the entity belongs to, when it names one (`events_GetByMarkets`). */
  market?: string;
  data: Record<string, unknown>;
}

export type NewChangeEvent = Omit<ChangeEvent, 'id'>;

export interface ChangeFeedQuery {
  /** One kind, or every kind when absent (`all`). */
  type?: ChangeEventType;
  /** Only events of these markets, when given. */
  markets?: readonly string[];
  limit: number;
}

/**
 * The change-event feed, with acknowledgement state per SOAP user: each user sees every event until that
 * user marks it done, whatever other users do.
 */
export interface ChangeFeed {
  /** The user's events not marked done, oldest first. */
  list(username: string, query: ChangeFeedQuery): Promise<ChangeEvent[]>;
  /**
   * Marks events done for the user (again is fine). Resolves with the numbers the feed never had, in
   * which case nothing was marked.
   */
  markDone(username: string, ids: readonly string[]): Promise<{ unknown: string[] }>;
}
