import type { IncomingMessage } from 'node:http';

/** A request header's text as Koa's `ctx.get` gives it ('' when absent). */
export function headerText(req: IncomingMessage, name: string): string {
  const value = req.headers[name];
  return typeof value === 'string' ? value : '';
}

/**
 * The visitor's address: behind one ingress that appends the client to `X-Forwarded-For`
 * (`trustProxy`), its last entry; else the socket's peer. Used for the login limits and GeoIP.
 */
export function clientAddress(req: IncomingMessage, trustProxy: boolean | undefined): string {
  if (trustProxy) {
    const last = headerText(req, 'x-forwarded-for')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .at(-1);
    if (last) return last;
  }
  return req.socket.remoteAddress ?? 'unknown';
}
