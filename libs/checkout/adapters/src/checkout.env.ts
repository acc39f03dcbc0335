import { z } from 'zod';
import { boundedInt } from '@commerce/shared-config';

/** The edge's own variables of the visitor's country and product reads, for the checkout-api and all-in-one config schemas. */
export const checkoutEdgeEnv = () => ({
  REQUEST_BUDGET_MS: boundedInt(100, 120_000, 2000).describe(
    'The time a checkout API request is given, in ms: past it the answer is 503 `{errors: {server: "temporarily unavailable"}}` with `Retry-After`, whatever it waited on (a stalled Redis, Postgres, service or Meilisearch), and every internal call made for it is told the time left (`x-request-deadline`), so no service works on for an answer nobody waits for (decision 132; in the all-in-one too, decision 142).',
  ),
  COUNTRY_HEADER: z
    .string()
    .regex(/^[A-Za-z0-9-]+$/, 'must be a header name')
    .transform((h) => h.toLowerCase())
    .optional()
    .describe(
      "A header with the visitor's country set by a trusted ingress or CDN (e.g. `cf-ipcountry`); a new session starts there when the store has that country, else in its address's country (`GEOIP_DB`), else in `defaultCountry`. Set it only behind an ingress that overwrites the header.",
    ),
  PRODUCT_CACHE_MS: boundedInt(0, 600_000, 2000).describe(
    "How long the selection routes keep a product they show in an envelope (ms), and how long `GET selection` reuses an envelope it rendered at the selection's current version before checking its products again in the background (up to twice this while the check runs; composed anew at least every 30 s: decisions 48, 57); 0 asks the catalog and the cart every time (decision 31).",
  ),
});
