import type { Selection } from './selection';

/** Port: where selections live (knex on Postgres or PGlite). */
export interface SelectionRepository {
  create(selection: Selection): Promise<void>;
  /** An open selection, or null. */
  findOpen(id: string): Promise<Selection | null>;
  /**
   * Loads the open selection under a row lock, applies `change` (a pure function that may throw a
   * DomainError, which writes nothing) and writes what changed, in one transaction: two concurrent
   * changes of one selection run one after the other and never lose an update. null when no open selection has that id.
   */
  update(id: string, change: (selection: Selection) => Selection): Promise<Selection | null>;
}
