import { z } from 'zod';

/** The catalog service's own variables, for the catalog and all-in-one config schemas. */
export const catalogEnv = () => ({
  /**
   * How long the product listing reuses whole answers to the same request (ms; decision 53): this
   * process's own writes and every product change event clear them at once. 0 computes every answer.
   */
  READ_CACHE_MS: z.coerce.number().int().min(0).max(600_000).default(2000),
  /**
   * How long a product view the listing read is kept at most (ms; decision 58): a product's change event
   * drops its view at once, whichever replica made the change. 0 reads the store every time.
   */
  VIEW_CACHE_MS: z.coerce.number().int().min(0).max(3_600_000).default(300_000),
  /**
   * Products a SOAP batch's apply merges between two writes of a part (decision 110): Postgres writes a part
   * while the next is merged. 0 writes the whole batch once it is merged (as before decision 110).
   */
  APPLY_PART_PRODUCTS: z.coerce.number().int().min(0).max(100_000).default(100),
});
