import type Koa from 'koa';
import {
  DeadlineExceededError,
  RETRY_AFTER_SECONDS,
  TEMPORARILY_UNAVAILABLE,
  unavailableCause,
  type ErrorFields,
} from '@commerce/shared-errors';
import { currentDeadline, type Logger } from '@commerce/shared-logging';

/** Probes and scrapes: their own time-outs (readiness: 2 s a check), never a request's budget. */
export const PROBE_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * How much later than the deadline the whole request is given up: the calls inside it are given the time left
 * (`x-request-deadline`, undici's time-outs) and fail first, naming what did not answer; this is the backstop.
 */
const BACKSTOP_MS = 50;

/**
 * `work`, or a `DeadlineExceededError` once `deadline` (+ a backstop) has passed, whichever comes first. The
 * work left behind goes on and its outcome is dropped (a late failure is not unhandled).
 */
export function raceDeadline<T>(work: Promise<T>, deadline: number, what: string): Promise<T> {
  const limit = requestDeadline(deadline, what);
  return limit.race(work).finally(limit.clear);
}

/**
 * A request's deadline as one timer for all its stages (decision 190): `race(work)` is `work`, or a
 * `DeadlineExceededError` once `deadline` (+ a backstop) has passed; the timer starts at the first race and is shared
 * by the later ones; `clear()` once answered.
 * A lean route races its session's opening and its handling: one timer a request, not two.
 */
export function requestDeadline(deadline: number, what: string): { race<T>(work: Promise<T>): Promise<T>; clear(): void } {
  let timer: NodeJS.Timeout | undefined;
  let late: Promise<never> | undefined;
  return {
    race<T>(work: Promise<T>): Promise<T> {
      if (!late) {
        const left = deadline - Date.now();
        late = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new DeadlineExceededError(what, Math.max(0, left))), Math.max(0, left) + BACKSTOP_MS);
        });
        // Raced by whichever stage is under way; one that ended (or a request gone) leaves nothing unhandled.
        late.catch(() => undefined);
      }
      work.catch(() => undefined);
      return Promise.race([work, late]);
    },
    clear: () => clearTimeout(timer),
  };
}

/** Gives up a request (503 `temporarily unavailable`, `Retry-After`) when its deadline passes (decision 132). */
export function deadlineMiddleware(): Koa.Middleware {
  return (ctx, next) => {
    const deadline = currentDeadline();
    if (deadline === undefined || PROBE_PATHS.has(ctx.path)) return next();
    return raceDeadline(next(), deadline, 'request');
  };
}

/**
 * An error a dependency that did not answer explains (`unavailableCause`): the 503 the transports answer for it,
 * logged at warn with the dependency and the reason (when there is a logger), or undefined for any other error.
 */
export function unavailableAnswer(err: unknown, logger?: Logger): { fields: ErrorFields; headers: Record<string, string> } | undefined {
  const cause = unavailableCause(err);
  if (!cause) return undefined;
  logger?.warn({ dependency: cause.dependency, reason: cause.reason }, `${cause.dependency} did not answer: ${cause.reason}`);
  return { fields: { ...TEMPORARILY_UNAVAILABLE }, headers: { 'Retry-After': RETRY_AFTER_SECONDS } };
}
