import { METHODS } from 'node:http';
import type Router from '@koa/router';
import type Koa from 'koa';

/**
 * Mounts routers on an app. A path a router has, asked with a method it does not have, answers 405
 * with `Allow` (the error middleware gives it the envelope); a path no router has stays a 404.
 */
export function mountRouters(app: Koa, routers: Router[]): void {
  for (const router of routers) {
    // @koa/router answers 501 to a method outside its short default list (TRACE, PROPFIND…). Node's
    // parser lets through only methods it knows, so every one that arrives is implemented as HTTP
    // goes, just not on this path: a 405 like any other.
    router.methods = [...METHODS];
    app.use(router.routes()).use(router.allowedMethods());
  }
}
