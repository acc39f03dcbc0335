import { DomainError, type ErrorFields } from './domain-error';

/** What a request that could not be served in time is told (no engine, no service named: decision 132). */
export const TEMPORARILY_UNAVAILABLE: Readonly<ErrorFields> = Object.freeze({ server: 'temporarily unavailable' });

/** Seconds a client is told to wait before trying again after a 503 (`Retry-After`). */
export const RETRY_AFTER_SECONDS = '1';

/**
 * A dependency did not answer within the time the request had: the edge's budget ran out, or a call to an engine or a
 * service timed out. 503 `{server: "temporarily unavailable"}` with `Retry-After`; the message (logged, never
 * answered) names the dependency and the time-out.
 */
export class DeadlineExceededError extends DomainError {
  constructor(
    readonly dependency: string,
    readonly timeoutMs: number,
    options?: { cause?: unknown },
  ) {
    super('REQUEST.DEADLINE', 'unavailable', { ...TEMPORARILY_UNAVAILABLE }, {}, { 'Retry-After': RETRY_AFTER_SECONDS });
    this.name = 'DeadlineExceededError';
    this.message = `${dependency}: no answer within ${timeoutMs} ms`;
    if (options?.cause !== undefined) (this as { cause?: unknown }).cause = options.cause;
  }
}

/** Postgres SQLSTATEs that say the server cannot serve now: query_canceled (statement_timeout), shutdown, no connection. */
const UNAVAILABLE_SQLSTATE = /^(57014|57P0[1-4]|08\d{3}|53300)$/;
/** pg's and knex's own words for a connection or a query that did not answer in time, or a connection lost. */
const DATABASE_MESSAGES =
  /^(Query read timeout|timeout expired|Connection terminated(?: due to connection timeout| unexpectedly)?|Client was closed and is not queryable)$|^Knex: Timeout acquiring a connection|^database: (no connection of the pool|cannot reach)/;
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

interface ErrorLike {
  name?: unknown;
  message?: unknown;
  code?: unknown;
  cause?: unknown;
}

/**
 * The dependency an error says did not answer, and why, or undefined for any other error: a Postgres that stalls or
 * is gone (pg's time-outs, knex's pool, the server's statement_timeout), a Redis command timed out, Meilisearch
 * not answering, a socket refused. The transports answer such an error 503 `TEMPORARILY_UNAVAILABLE` with
 * `Retry-After` and log this, never the "unhandled error" of a bug (decision 132).
 */
export function unavailableCause(error: unknown): { dependency: string; reason: string } | undefined {
  for (
    let e = error as ErrorLike | undefined, depth = 0;
    typeof e === 'object' && e !== null && depth < 5;
    depth++, e = e.cause as ErrorLike
  ) {
    const message = typeof e.message === 'string' ? (e.message.split('\n')[0] ?? '') : '';
    const name = typeof e.name === 'string' ? e.name : '';
    const code = typeof e.code === 'string' ? e.code : '';
    if (
      name === 'DbAcquireTimeoutError' ||
      name === 'KnexTimeoutError' ||
      DATABASE_MESSAGES.test(message) ||
      UNAVAILABLE_SQLSTATE.test(code)
    )
      return { dependency: 'database', reason: code && UNAVAILABLE_SQLSTATE.test(code) ? `${code} ${message}` : message };
    if (message === 'Command timed out' || name === 'MaxRetriesPerRequestError' || /^Connection is closed\.?$/.test(message))
      return { dependency: 'redis', reason: message };
    if (/^Meilisearch(RequestTimeOut|Request)Error$/.test(name)) return { dependency: 'search', reason: message };
    if (SOCKET_CODES.has(code)) return { dependency: 'socket', reason: `${code} ${message}` };
  }
  return undefined;
}
