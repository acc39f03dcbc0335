import type { Category } from './product';

/** The category tree (table `categories`): the configured categories and those the ERP names. */
export interface CategoriesRepository {
  findByExternalIds(externalIds: string[]): Promise<Category[]>;
  /** Every category, in no particular order. */
  list(): Promise<Category[]>;
  nextId(): Promise<number>;
  uriTaken(uri: string, exceptId: number | null): Promise<boolean>;
  /** Where the run of stored category URIs `<base>`, `<base>-2` … ends (0 when `<base>` is free): `uniqueSlug`'s hint. */
  uriHighestSuffix(base: string): Promise<number>;
  /** The position after every top-level category (where an unconfigured category goes). */
  nextTopPosition(): Promise<number>;
  /** Inserts or updates these categories (ids given); URIs may move between them. */
  save(categories: Category[]): Promise<void>;
}
