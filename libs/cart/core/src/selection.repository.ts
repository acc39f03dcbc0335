import type { Selection } from './selection';

/** Port: where selections live (knex on Postgres or PGlite). */
export interface SelectionRepository {
  /**
   * Stores a new selection with its lines (a first change made with it, decision 157), at once; false when the
   * customer already has an open saved selection (one per customer, a unique index).
   */
  create(selection: Selection, customerId?: string): Promise<boolean>;
  /**
   * Stores new anonymous selections with their lines in one statement (decision 184), all or none: throws when
   * it fails (a line id met elsewhere), and then nothing was stored.
   */
  createMany(selections: Selection[]): Promise<void>;
  /** The id of the customer's open saved selection, or null. */
  findSavedId(customerId: string): Promise<string | null>;
  /**
   * Under the row locks of both selections, in one transaction: with a saved selection, `merge` decides its
   * lines from both and the anonymous one is closed; without one, the anonymous selection becomes the
   * customer's. The saved selection, or null when there is neither.
   */
  claim(
    customerId: string,
    anonymousId: string | null,
    merge: (saved: Selection, anonymous: Selection) => Selection,
  ): Promise<Selection | null>;
  /** An open selection, or null. */
  findOpen(id: string): Promise<Selection | null>;
  /**
   * Loads the open selection, applies `change` (a pure function that may throw a DomainError, which writes
   * nothing) and writes what changed, atomically and only onto the state it read (a conditional write on the
   * selection's version, else under its row lock): two concurrent changes of one selection run one after
   * the other and never lose an update; `change` may be called again. null when no open selection has that id.
   */
  update(id: string, change: (selection: Selection) => Selection): Promise<Selection | null>;
  /**
   * Several changes, each with the outcome `update` gives it (one change's failure fails no other); a
   * selection's changes are applied one after the other in the order given (decision 78).
   */
  updateMany(
    items: Array<{ id: string; change: (selection: Selection) => Selection }>,
  ): Promise<Array<PromiseSettledResult<Selection | null>>>;
  /** Closes an open selection (its order was placed); false when no open selection has that id. */
  close(id: string): Promise<boolean>;
}
