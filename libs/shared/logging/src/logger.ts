import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import pino, { type Logger } from 'pino';
import { stdoutDestination, type LogDestination } from './log-destination';

export type { Logger } from 'pino';

/** What travels with one request or one consumed message: carried through HTTP calls and Kafka headers. */
export interface RequestContext {
  requestId: string;
}

export const REQUEST_ID_HEADER = 'x-request-id';

const storage = new AsyncLocalStorage<RequestContext>();

export const newRequestId = (): string => randomUUID();

/** Runs fn with a request id that every log line and every outgoing call made inside it carries. */
export function withRequestContext<T>(context: RequestContext, fn: () => T): T {
  return storage.run(context, fn);
}

export const currentRequestId = (): string | undefined => storage.getStore()?.requestId;

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
