import type { EventEnvelope } from '@commerce/shared-events';
import type { AttemptDto, AttemptStatus, PaymentAddress } from '@commerce/payment-contracts';

export interface StoredAttempt extends AttemptDto {
  returnUrl: string;
  failedUrl: string;
  providerData: Record<string, unknown>;
}

/** Port: the payment attempts (knex on Postgres or PGlite), with the outbox of `payment.payment.v1`. */
export interface AttemptRepository {
  /**
   * Inserts the attempt unless one has its id, as the one live attempt of its selection (DESIGN §8): in one
   * transaction the selection's other started attempts are cancelled (`replaced`, with their
   * `PaymentCancelled`), and nothing is inserted while another attempt of the selection is authorized
   * (`authorized`: that one). The stored one, and whether this call made it. A new id of a selection without a
   * live attempt (a checkout's first start) takes one statement, the database's unique index its guard.
   */
  insert(
    attempt: StoredAttempt,
    cancelled: (replaced: StoredAttempt) => EventEnvelope[],
  ): Promise<{ attempt: StoredAttempt; created: boolean; replaced: StoredAttempt[]; authorized: StoredAttempt | null }>;
  /**
   * Records the provider's start (reference, data, immediate decision, with its events) of an attempt this
   * call created; of one a newer attempt replaced meanwhile, only the reference and data (it stays cancelled).
   */
  recordStart(
    attemptId: string,
    start: {
      providerReference: string;
      providerData: Record<string, unknown>;
      status: AttemptStatus;
      customerAddress: PaymentAddress | null;
    },
    events: EventEnvelope[],
  ): Promise<StoredAttempt>;
  find(attemptId: string): Promise<StoredAttempt | null>;
  findByReference(provider: string, providerReference: string): Promise<StoredAttempt | null>;
  /**
   * Moves the attempt from one of `from` to `to` under its row lock, with the events of the change (made by the
   * caller from the attempt it read: they name only what a change never alters) written in the same statement,
   * only if the change happens; null when it is not in one of `from` (someone else decided first).
   */
  transition(
    attemptId: string,
    from: AttemptStatus[],
    to: AttemptStatus,
    patch: { customerAddress?: PaymentAddress | null; providerData?: Record<string, unknown> },
    events: EventEnvelope[],
  ): Promise<StoredAttempt | null>;
  /** Merges into the provider's data (the test pages record the visitor's choice). */
  mergeProviderData(attemptId: string, data: Record<string, unknown>): Promise<StoredAttempt | null>;
  /** The live attempt of a selection (started or authorized; at most one, a unique index says so), or null. */
  liveOfSelection(selectionId: string): Promise<StoredAttempt | null>;
  /**
   * Expires abandoned attempts: at most `limit` started before `before` move to `cancelled` (`replaced`: never kept,
   * an authorization arriving later is voided), each with its events in the same transaction. Each attempt once,
   * whichever replica sweeps (rows another has locked are skipped).
   */
  expireStarted(before: Date, limit: number, cancelled: (expired: StoredAttempt) => EventEnvelope[]): Promise<StoredAttempt[]>;
  /**
   * Replaced attempts whose authorization is still to be voided at the provider (`provider_void_due`: a second
   * authorization of a selection that the one-live-attempt migration found), at most `limit`. `transition` to
   * `voided` clears the mark.
   */
  voidsDue(limit: number): Promise<StoredAttempt[]>;
}
