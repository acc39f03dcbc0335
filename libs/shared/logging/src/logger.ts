import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import pino, { type Logger } from 'pino';
import { stdoutDestination, type LogDestination } from './log-destination';

export type { Logger } from 'pino';

/** What travels with one request or one consumed message: carried through HTTP calls and Kafka headers. */
export interface RequestContext {
  requestId: string;
  /**
   * When the request's time runs out (`Date.now()` ms): the edge's budget (REQUEST_BUDGET_MS), or the time the
   * caller said was left (`DEADLINE_HEADER`). Every call made inside it is given what is left (decision 132).
   */
  deadline?: number;
}

export const REQUEST_ID_HEADER = 'x-request-id';

/** The milliseconds the caller has left for this request: an internal call's answer is of no use after them. */
export const DEADLINE_HEADER = 'x-request-deadline';

const storage = new AsyncLocalStorage<RequestContext>();

export const newRequestId = (): string => randomUUID();

/** Runs fn with a request id that every log line and every outgoing call made inside it carries. */
export function withRequestContext<T>(context: RequestContext, fn: () => T): T {
  return storage.run(context, fn);
}

/**
 * Runs fn under `requestId` when there is one (work queued or batched with the id of the request that asked for it),
 * else in the current context.
 */
export function withRequestId<T>(requestId: string | undefined, fn: () => T): T {
  return requestId ? withRequestContext({ requestId }, fn) : fn();
}

export const currentRequestId = (): string | undefined => storage.getStore()?.requestId;

/** The current request's deadline (`Date.now()` ms), undefined outside a request or without one. */
export const currentDeadline = (): number | undefined => storage.getStore()?.deadline;

/**
 * A request's deadline: `budgetMs` from now (the edge's own budget, when it has one) and no later than the time
 * left that the caller named in `DEADLINE_HEADER` (a whole number of ms); undefined when neither is given.
 */
export function deadlineOf(header: string | string[] | undefined, budgetMs: number | undefined, now = Date.now()): number | undefined {
  const left = typeof header === 'string' && /^\d{1,9}$/.test(header) ? Number(header) : undefined;
  const limits = [left, budgetMs].filter((ms): ms is number => ms !== undefined);
  return limits.length ? now + Math.min(...limits) : undefined;
}

/**
 * JSON logs on stdout (by default); every line made inside a request context names its request id.
 * Logging never waits for the reader: see `log-destination.ts`.
 */
export function createLogger(
  service: string,
  level: string = process.env['LOG_LEVEL'] ?? 'info',
  destination: LogDestination = stdoutDestination(),
): Logger {
  return pino(
    {
      name: service,
      level,
      base: { service },
      timestamp: pino.stdTimeFunctions.isoTime,
      mixin: () => {
        const requestId = currentRequestId();
        return requestId ? { requestId } : {};
      },
    },
    destination,
  );
}
