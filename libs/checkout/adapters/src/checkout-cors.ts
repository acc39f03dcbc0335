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
    .describe(
      'Origins of browser storefronts allowed to call the checkout API from another origin, comma-separated as browsers send them (`https://shop.example,https://www.shop.example`: scheme, host, port, no path), or `*` for any. Unset: no CORS headers at all (a cross-origin page cannot read the answers). Set: a preflight (`OPTIONS` with `Access-Control-Request-Method`) of a listed origin is 204 allowing `GET, HEAD, POST, PUT, DELETE` and the `API-Token` and `Content-Type` headers for 10 minutes; its answers (errors too) carry `Access-Control-Allow-Origin` and expose `API-Token` and `Retry-After`; other origins get nothing (and `Vary: Origin`). No credentials (cookies) are involved: the token travels in `API-Token`. In the all-in-one it covers every path of its one port (decision 118).',
    )
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
