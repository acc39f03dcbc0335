import type { CatalogRef, RefKind } from './product';

/** Brands and collections (tables `brands`, `collections`): the refs a product points at, by kind. */
export interface BrandsAndCollectionsRepository {
  findByExternalIds(kind: RefKind, externalIds: string[]): Promise<CatalogRef[]>;
  uriTaken(kind: RefKind, uri: string, exceptId: number | null): Promise<boolean>;
  /** Where the run of stored URIs `<base>`, `<base>-2` … of this kind ends (0 when `<base>` is free): `uniqueSlug`'s hint. */
  uriHighestSuffix(kind: RefKind, base: string): Promise<number>;
  /** Inserts (id null) or updates a ref; returns it with its id. */
  save(kind: RefKind, ref: Omit<CatalogRef, 'id'> & { id: number | null }): Promise<CatalogRef>;
}
