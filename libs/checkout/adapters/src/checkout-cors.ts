import { z } from 'zod';
import { corsOriginsOf, corsPolicy, type CorsPolicy } from '@commerce/shared-http';

/** An origin as a browser sends it: scheme, host and an optional port, no path. */
const ORIGIN = /^(\*|https?:\/\/[^/\s,]+)$/;

export const corsEnv = () => ({
  /**
   * Origins of browser storefronts allowed to call the checkout API from another origin (decision 118), comma-separated
   * (`https://shop.example,https://www.shop.example`), or `*` for any; unset: none (no CORS headers).
   */
  CORS_ORIGINS: z
    .string()
    .default('')
    .transform(corsOriginsOf)
    .pipe(z.array(z.string().regex(ORIGIN, 'must be origins such as https://shop.example, comma-separated, or *'))),
});

/** The checkout API's CORS policy: its methods, the `API-Token` and `Content-Type` request headers; undefined when off. */
export function checkoutCors(config: { CORS_ORIGINS: string[] }): { cors?: CorsPolicy } {
  const cors = corsPolicy({
    origins: config.CORS_ORIGINS,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'],
    allowHeaders: ['API-Token', 'Content-Type'],
    // A page's script reads the token from the body; the header and a 429's Retry-After are there too.
    exposeHeaders: ['API-Token', 'Retry-After'],
    maxAgeSeconds: 600,
  });
  return cors ? { cors } : {};
}
