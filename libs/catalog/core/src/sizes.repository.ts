import type { Size, SizeTable } from './product';

/** Sizes and their size tables (tables `sizes`, `size_tables`). */
export interface SizesRepository {
  findByExternalIds(externalIds: string[]): Promise<Size[]>;
  /** Inserts (id null) or updates a size; returns it with its id. */
  save(size: Omit<Size, 'id'> & { id: number | null }): Promise<Size>;
  findTable(externalId: string): Promise<SizeTable | null>;
  saveTable(table: SizeTable): Promise<void>;
}
