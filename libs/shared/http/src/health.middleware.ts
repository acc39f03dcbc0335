import type Koa from 'koa';
import { isShuttingDown } from './app-state';

export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
}

export const READINESS_TIMEOUT_MS = 2000;

async function runCheck(check: ReadinessCheck, timeoutMs: number): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([check.check(), timeout]);
    return 'ok';
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return message.split('\n')[0] || 'failed';
  } finally {
    clearTimeout(timer);
  }
}

/**
 * GET /healthz: liveness, the process answers, no dependency is asked.
 * GET /readyz: readiness, every dependency answers in time and no shutdown has begun.
 */
export function healthMiddleware(app: Koa, checks: ReadinessCheck[], timeoutMs = READINESS_TIMEOUT_MS): Koa.Middleware {
  return async (ctx, next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    if (ctx.path === '/healthz') {
      ctx.body = { status: 'ok' };
      return;
    }
    if (ctx.path === '/readyz') {
      ctx.set('Cache-Control', 'no-store');
      if (isShuttingDown(app)) {
        ctx.status = 503;
        ctx.body = { status: 'not ready', checks: { shutdown: 'shutting down' } };
        return;
      }
      const results = await Promise.all(checks.map(async (c) => [c.name, await runCheck(c, timeoutMs)] as const));
      const ready = results.every(([, result]) => result === 'ok');
      ctx.status = ready ? 200 : 503;
      ctx.body = { status: ready ? 'ready' : 'not ready', checks: Object.fromEntries(results) };
      return;
    }
    return next();
  };
}
