import type { Pricelist, PricelistItem } from './product';

/** Pricelists and their prices, a row per (pricelist, product, variation) (tables `pricelists`, `pricelist_items`). */
export interface PricesRepository {
  findPricelist(externalId: string): Promise<Pricelist | null>;
  savePricelist(pricelist: Pricelist): Promise<void>;
  /** Rows of a pricelist, only those of the given products when given. */
  items(pricelist: string, productExternalIds?: string[]): Promise<PricelistItem[]>;
  /** Inserts or replaces rows by (pricelist, product, variation). */
  saveItems(items: PricelistItem[]): Promise<void>;
}
