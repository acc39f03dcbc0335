import type Koa from 'koa';

/**
 * The visitor's address: behind one ingress that appends the client to `X-Forwarded-For`
 * (`trustProxy`), its last entry; else the socket's peer. Used for the login limits and GeoIP.
 */
export function clientAddress(ctx: Koa.Context, trustProxy: boolean | undefined): string {
  if (trustProxy) {
    const last = ctx
      .get('x-forwarded-for')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .at(-1);
    if (last) return last;
  }
  return ctx.req.socket.remoteAddress ?? 'unknown';
}
