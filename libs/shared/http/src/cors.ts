import type Koa from 'koa';

/**
 * Cross-origin requests from browser storefronts on other origins (decision 118): the origins allowed, or none
 * (no CORS headers at all, as before). One policy for the Koa app and the lean routes, so both answer alike.
 */
export interface CorsPolicy {
  /** The headers of an answer to a request from `origin`: `Access-Control-Allow-Origin` when allowed, `Vary` when it depends on it. */
  answerHeaders(origin: string | undefined): Readonly<Record<string, string>> | undefined;
  /** Answers preflights of allowed origins (204) and puts `answerHeaders` on everything else. */
  middleware: Koa.Middleware;
}

export interface CorsOptions {
  /** Allowed origins (`https://shop.example`, scheme, host and port as the browser sends them), or `*` for any. */
  origins: readonly string[];
  /** Methods a preflight allows. */
  methods: readonly string[];
  /** Request headers a preflight allows (e.g. `API-Token`, `Content-Type`). */
  allowHeaders: readonly string[];
  /** Response headers a page's script may read. */
  exposeHeaders?: readonly string[];
  /** How long a browser may keep a preflight's answer. */
  maxAgeSeconds?: number;
}

/** A policy for the origins given; undefined when there are none (CORS off: nothing added to any answer). */
export function corsPolicy(options: CorsOptions): CorsPolicy | undefined {
  if (options.origins.length === 0) return undefined;
  const any = options.origins.includes('*');
  const allowed = new Set(options.origins);
  const expose: Record<string, string> = options.exposeHeaders?.length
    ? { 'Access-Control-Expose-Headers': options.exposeHeaders.join(', ') }
    : {};
  type Headers = Readonly<Record<string, string>>;
  // Made once per origin (bounded by the configuration, or one for `*`): the hot path only looks them up.
  const byOrigin = new Map<string, Headers>();
  const anyOrigin: Headers = Object.freeze({ 'Access-Control-Allow-Origin': '*', ...expose });
  for (const origin of allowed)
    if (origin !== '*') byOrigin.set(origin, Object.freeze({ 'Access-Control-Allow-Origin': origin, Vary: 'Origin', ...expose }));
  const preflight = {
    'Access-Control-Allow-Methods': options.methods.join(', '),
    'Access-Control-Allow-Headers': options.allowHeaders.join(', '),
    'Access-Control-Max-Age': String(options.maxAgeSeconds ?? 600),
  };

  // The answer depends on Origin when only some origins are allowed: caches must keep them apart.
  const varyOnly: Headers = Object.freeze({ Vary: 'Origin' });
  const answerHeaders = (origin: string | undefined): Headers | undefined => {
    if (any) return origin === undefined ? undefined : anyOrigin;
    return (origin !== undefined && byOrigin.get(origin)) || varyOnly;
  };

  const middleware: Koa.Middleware = async (ctx, next) => {
    const headers = answerHeaders(ctx.get('Origin') || undefined);
    if (headers) ctx.set(headers);
    if (!headers?.['Access-Control-Allow-Origin']) return next();
    if (ctx.method === 'OPTIONS' && ctx.get('Access-Control-Request-Method')) {
      ctx.set(preflight);
      if (!any) ctx.set('Vary', 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers');
      ctx.status = 204;
      return;
    }
    return next();
  };
  return { answerHeaders, middleware };
}

/** The origins of a comma-separated list (`CORS_ORIGINS`): trimmed, empty entries dropped. */
export const corsOriginsOf = (list: string | undefined): string[] =>
  (list ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter((o) => o !== '');
