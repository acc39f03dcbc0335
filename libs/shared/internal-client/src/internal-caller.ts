import { Pool, type Dispatcher } from 'undici';
import { DeadlineExceededError, DomainError, statusOfKind, type ErrorKind } from '@commerce/shared-errors';
import { currentDeadline, currentRequestId, DEADLINE_HEADER, REQUEST_ID_HEADER } from '@commerce/shared-logging';

const JSON_HEADERS = ['content-type', 'application/json'];
/** A path undici takes as it is; anything else is normalised (percent-encoded) as `new URL` does. */
const PLAIN_PATH = /^\/[\x21-\x7e]*$/;
const pathOf = (path: string, origin: string): string => {
  const url = new URL(path, origin);
  return url.pathname + url.search;
};

/**
 * How long a call made outside any request (a consumer's, a relay's, a saga's) waits for the callee's answer;
 * a call inside a request waits only for what its deadline leaves (decision 132).
 */
export const INTERNAL_CALL_TIMEOUT_MS = Number(process.env['INTERNAL_CALL_TIMEOUT_MS'] ?? '') || 10_000;
/** A new connection to the callee that is not made in this time fails the call (undici's default is 10 s). */
const CONNECT_TIMEOUT_MS = 2000;
/** How much later undici's own time-outs give a call up than the call's timer (see `send`). */
const UNDICI_BACKSTOP_MS = 1000;
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

const KIND_OF_STATUS = new Map(Object.entries(statusOfKind).map(([kind, status]) => [status, kind as ErrorKind]));

/** One JSON call to a service's internal HTTP API: the parsed body, or null for a 404. */
export type InternalCall = <T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown) => Promise<T | null>;

/**
 * The same call, answering the callee's JSON as its UTF-8 bytes (null for a 404 without a code): for a
 * caller that passes the answer on inside its own JSON instead of decoding, parsing and serialising it again.
 */
export type InternalBytesCall = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown) => Promise<Buffer | null>;

/**
 * The plumbing of every typed HTTP client of a service's contracts (DESIGN §2): keep-alive, the
 * request id passed on, and the callee's `errors` turned back into a DomainError. A callee that does
 * not answer, or answers 5xx, is `unavailable` (503 at the edge), never an unexplained 500.
 */
export function createInternalCaller(baseUrl: string, service: string): InternalCall {
  return createInternalCallers(baseUrl, service).json;
}

/**
 * What one call's status and parsed body mean, as `json` answers them: the body, null for a 404 without a
 * code, else the callee's DomainError (for a caller that gets several calls' answers in one, decision 78).
 */
export type InternalAnswer = <T>(statusCode: number, answer: unknown) => T | null;

/** Both forms of the call on one connection pool: parsed (`json`) and as the callee's bytes (`bytes`). */
export function createInternalCallers(
  baseUrl: string,
  service: string,
): { json: InternalCall; bytes: InternalBytesCall; answer: InternalAnswer } {
  // One kept pool for the callee's origin (decision 69): no URL parsed and no origin looked up per call.
  const origin = new URL(baseUrl).origin;
  const pool = new Pool(origin, { keepAliveTimeout: 30_000, connections: 64, connect: { timeout: CONNECT_TIMEOUT_MS } });
  const code = `${service.toUpperCase()}.REMOTE_ERROR`;
  const send = (method: string, path: string, body?: unknown): Promise<{ statusCode: number; bytes: Buffer }> => {
    const requestId = currentRequestId();
    const deadline = currentDeadline();
    // Inside a request: what its deadline leaves, told to the callee too; else the fixed time-out.
    const timeoutMs = deadline === undefined ? INTERNAL_CALL_TIMEOUT_MS : deadline - Date.now();
    if (timeoutMs <= 0) return Promise.reject(new DeadlineExceededError(service, 0));
    let headers = requestId ? ['content-type', 'application/json', REQUEST_ID_HEADER, requestId] : JSON_HEADERS;
    if (deadline !== undefined) headers = [...headers, DEADLINE_HEADER, String(timeoutMs)];
    const unavailable = (error: unknown) => {
      const errorCode = (error as { code?: string }).code;
      return errorCode && TIMEOUT_CODES.has(errorCode)
        ? new DeadlineExceededError(service, timeoutMs, { cause: error })
        : new DomainError(code, 'unavailable', { [service]: `unavailable (${errorCode ?? 'no answer'})` });
    };
    return new Promise((resolve, reject) => {
      let statusCode = 0;
      const chunks: Buffer[] = [];
      let size = 0;
      // The call's time is kept by a timer of Node's, not by undici's time-outs: undici runs a time-out over 1 s on
      // its own clock, a tick every 499 ms, backdated by one tick, so a call given 1.99 s was given up after 1.5-2 s
      // (undici/lib/util/timers.js): on a busy box the edge answered 503 while the callee's answer was on its way.
      // undici's time-outs stay, a second later, for a loop too busy to run this timer.
      let controller: Dispatcher.DispatchController | undefined;
      let expired = false;
      const timer = setTimeout(() => {
        expired = true;
        const error = new DeadlineExceededError(service, timeoutMs);
        controller?.abort(error);
        reject(error);
      }, timeoutMs);
      const done = () => clearTimeout(timer);
      // undici's dispatch with a handler of its own: the answer's bytes without a body stream to consume.
      const handler: Dispatcher.DispatchHandler = {
        onRequestStart: (started) => {
          controller = started;
          // Queued behind the pool's connections past its time: not sent.
          if (expired) started.abort(new DeadlineExceededError(service, timeoutMs));
        },
        onResponseStart: (_controller, status) => {
          statusCode = status;
          chunks.length = size = 0;
        },
        onResponseData: (_controller, chunk) => {
          chunks.push(chunk);
          size += chunk.length;
        },
        onResponseEnd: () => {
          done();
          resolve({ statusCode, bytes: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size) });
        },
        onResponseError: (_controller, error) => {
          done();
          reject(error instanceof DeadlineExceededError ? error : unavailable(error));
        },
      };
      try {
        pool.dispatch(
          {
            method: method as Dispatcher.HttpMethod,
            path: PLAIN_PATH.test(path) ? path : pathOf(path, origin),
            headers,
            headersTimeout: timeoutMs + UNDICI_BACKSTOP_MS,
            bodyTimeout: timeoutMs + UNDICI_BACKSTOP_MS,
            ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          },
          handler,
        );
      } catch (error) {
        done();
        reject(unavailable(error));
      }
    });
  };
  const parse = <T>(text: string): (T & { errors?: Record<string, string>; code?: string }) | undefined => {
    try {
      return text ? JSON.parse(text) : undefined;
    } catch {
      return undefined;
    }
  };
  /** A bare 404 is "no such thing" (null); a 404 carrying a domain code is the callee's error (e.g. an unknown line). */
  const failure = (statusCode: number, json: { errors?: Record<string, string>; code?: string } | undefined): DomainError =>
    new DomainError(
      json?.code ?? code,
      statusCode < 500 && json?.errors ? (KIND_OF_STATUS.get(statusCode) ?? 'invalid') : 'unavailable',
      json?.errors ?? { [service]: `answered ${statusCode}` },
    );
  const answerOf = <T>(statusCode: number, answer: (T & { errors?: Record<string, string>; code?: string }) | undefined): T | null => {
    if (statusCode === 404 && !answer?.code) return null;
    if (statusCode >= 400 || answer === undefined) throw failure(statusCode, answer);
    return answer;
  };
  const json = async <T>(method: string, path: string, body?: unknown): Promise<T | null> => {
    const { statusCode, bytes } = await send(method, path, body);
    return answerOf(statusCode, parse<T>(bytes.toString('utf8')));
  };
  const bytes = async (method: string, path: string, body?: unknown): Promise<Buffer | null> => {
    const answered = await send(method, path, body);
    // Success is passed on unparsed: only a JSON object is (the callee's router sends nothing else).
    if (answered.statusCode < 400 && answered.bytes[0] === 0x7b) return answered.bytes;
    const answer = parse<object>(answered.bytes.toString('utf8'));
    if (answered.statusCode === 404 && !answer?.code) return null;
    throw failure(answered.statusCode, answer);
  };
  return { json: json as InternalCall, bytes: bytes as InternalBytesCall, answer: answerOf as InternalAnswer };
}
