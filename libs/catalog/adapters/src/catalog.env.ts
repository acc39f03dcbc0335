import { z } from 'zod';
import { boundedInt } from '@commerce/shared-config';

/** The catalog service's own variables, for the catalog and all-in-one config schemas. */
export const catalogEnv = () => ({
  MEILI_API_KEY: z.string().optional().describe("Meilisearch's API key (its master key, or a key allowed to manage the index)."),
  MEILI_INDEX: z.string().default('products').describe('The Meilisearch index (uid) of the products.'),
  /**
   * How long the product listing reuses whole answers to the same request (ms; decision 53): this
   * process's own writes and every product change event clear them at once. 0 computes every answer.
   */
  READ_CACHE_MS: boundedInt(0, 600_000, 2000).describe(
    "How long the product listing (`POST products`, `POST uri`) reuses whole answers to the same request (ms); the process's own writes and every product change event it hears clear them at once; 0 computes every answer (decisions 38, 53, 58).",
  ),
  /**
   * How long a product view the listing read is kept at most (ms; decision 58): a product's change event
   * drops its view at once, whichever replica made the change. 0 reads the store every time.
   */
  VIEW_CACHE_MS: boundedInt(0, 3_600_000, 300_000).describe(
    "How long at most the product listing keeps a product view (the product with its variants, items, stock, prices, brand, collection, categories) and the brands, collections and category tree it read (ms); a product's change event drops its view at once in every catalog replica (each hears every `ProductUpserted` in a consumer group of its own), so the bound only matters for an event a replica missed; 0 reads the store for every listing (decision 58).",
  ),
  /**
   * How long the day-by-day counts of what shoppers searched for (`search_queries`) are kept (days; issue 26).
   */
  SEARCH_QUERIES_RETENTION_DAYS: boundedInt(1, 366, 30).describe(
    'How many days the counts of what shoppers searched for (`search_queries`, top and zero-result queries per day) are kept.',
  ),
  /**
   * Products a SOAP batch's apply merges between two writes of a part (decision 110): Postgres writes a part
   * while the next is merged. 0 writes the whole batch once it is merged (as before decision 110).
   */
  APPLY_PART_PRODUCTS: boundedInt(0, 100_000, 100).describe(
    "Products a SOAP batch's apply merges between two writes of a part: Postgres writes a part of the batch while the catalog merges the next, in the batch's one transaction; 0 writes the whole batch once it is merged (decision 110).",
  ),
});
