import { createReadStream, statSync } from 'node:fs';
import { extname, join, resolve, sep } from 'node:path';
import type Koa from 'koa';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * Serves the files under `dir` to GET and HEAD of a path no router answered (`/` is `index.html`), e.g. the
 * all-in-one's demo storefront. Only files inside `dir` with a known type; anything else stays the app's 404.
 * The page revalidates on every load (`no-cache`), so a rebuilt shop shows at once; the rest is kept briefly.
 */
export function staticFiles(dir: string): Koa.Middleware {
  const root = resolve(dir);
  return async (ctx, next) => {
    await next();
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || ctx.status !== 404 || ctx.body != null) return;
    let path: string;
    try {
      path = decodeURIComponent(ctx.path);
    } catch {
      return;
    }
    if (path.includes('\0')) return;
    const file = resolve(join(root, path.endsWith('/') ? `${path}index.html` : path));
    if (file !== root && !file.startsWith(root + sep)) return;
    const type = TYPES[extname(file).toLowerCase()];
    if (!type) return;
    let size: number;
    try {
      const stat = statSync(file);
      if (!stat.isFile()) return;
      size = stat.size;
    } catch {
      return;
    }
    ctx.status = 200;
    ctx.type = type;
    ctx.length = size;
    ctx.set('Cache-Control', type.startsWith('text/html') ? 'no-cache' : 'public, max-age=300');
    ctx.set('X-Content-Type-Options', 'nosniff');
    if (ctx.method === 'GET') ctx.body = createReadStream(file);
  };
}
