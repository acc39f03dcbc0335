import { z } from 'zod';

/** The catalog service's own variables, for the catalog and all-in-one config schemas. */
export const catalogEnv = () => ({
  /**
   * How long the product listing reuses what it read from the store (ms; decision 38): this process's
   * own writes clear it at once, other processes' writes show within it. 0 reads the store every time.
   */
  READ_CACHE_MS: z.coerce.number().int().min(0).max(600_000).default(2000),
});
