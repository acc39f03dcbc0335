import type { Selection, SelectionLine } from './selection';

/** Port: where selections live (knex on Postgres or PGlite). */
export interface SelectionRepository {
  create(selection: Selection): Promise<void>;
  /** An open selection, or null. */
  findOpen(id: string): Promise<Selection | null>;
  /**
   * Adds the line, or adds its quantity to the selection's line of the same item, atomically,
   * so two concurrent adds of one item never lose a quantity. Returns false when no open selection has that id.
   */
  addLine(selectionId: string, line: SelectionLine): Promise<boolean>;
}
