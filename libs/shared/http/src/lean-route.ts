import type { IncomingMessage, ServerResponse } from 'node:http';
import type Koa from 'koa';
import { isDomainError, NOT_A_JSON_OBJECT, RETRY_AFTER_SECONDS, statusOfKind, type DomainError } from '@commerce/shared-errors';
import { DEADLINE_HEADER, REQUEST_ID_HEADER, deadlineOf, newRequestId, withRequestContext, type Logger } from '@commerce/shared-logging';
import { requestDeadline, unavailableAnswer } from './deadline';
import { isShuttingDown } from './app-state';
import { requestObserverOf } from './metrics.middleware';
import type { CorsPolicy } from './cors';
import { isJsonNonObject } from './json-text';

/**
 * An internal route answered without Koa (decision 63): a service's hottest internal call, whose cost per
 * request was mostly the app's middleware stack. It answers as `withCodes` on the Koa router does, with
 * the same request id, access line and request-duration metric; a request it is not sure about (another
 * content type, no or too large `Content-Length`, a path it does not match) goes to the Koa app unchanged.
 */
export interface LeanRoute<S = unknown> {
  /** A `GET` route takes only requests without a body (`bodyless`); `HEAD` is the app's. */
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The router's pattern, for the metric's `route` label (e.g. `/internal/cart/selections/:id/changes`). */
  route: string;
  /** The whole path; its captures are the route's parameters (percent-decoded). */
  path: RegExp;
  /**
   * The answer (a JSON body, 200); a DomainError is answered `{code, errors}` with its kind's status.
   * `opened` is what `open` gave (undefined without one).
   */
  handle(params: string[], body: unknown, opened: S): Promise<unknown>;
  /** The status of an answer (default 200), as `withCodes`'s `status`. */
  status?: number;
  /** A domain error answered as the error middleware would instead (`{errors}`: a bare 404 of an unknown entity). */
  passes?(err: DomainError): boolean;
  /**
   * Also a request without a body or a type (no `Content-Type`, no `Transfer-Encoding`, no or a zero
   * `Content-Length`): its body is `{}`, as the app's body parser gives it (decision 67).
   */
  bodyless?: boolean;
  /** Run before the body is read, as an app's `beforeBody` (the checkout's session); its failure is answered as an error. */
  open?(req: IncomingMessage): Promise<S>;
  /** Members in front of every error body, as an app's `errorBody` (`opened` undefined when `open` failed). */
  errorBody?(req: IncomingMessage, opened: S | undefined): Record<string, unknown>;
  /** Headers of every answer once opened (the checkout's `API-Token`). */
  headers?(opened: S): Record<string, string>;
  /** The answer's JSON text or bytes, or its bytes in parts written one after the other (JSON.stringify without). */
  json?(answer: unknown): string | Buffer | readonly Buffer[];
  /**
   * The body is a form as a browser posts it (`application/x-www-form-urlencoded`, its fields as an object of strings),
   * not JSON: a page's button (the test provider's Approve, issue 28).
   */
  form?: boolean;
  /**
   * The answer written as the app's route writes it (a page, a redirect): on a Koa context made for the request
   * (`app.createContext`, none of the app's middleware run), whose status, headers and string body are sent.
   */
  respond?(answer: unknown, ctx: Koa.Context): void;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const byteLengthOf = (parts: readonly Buffer[]): number => {
  let length = 0;
  for (const part of parts) length += part.length;
  return length;
};

const acceptableId = /^[\w.:@/+=-]{1,128}$/;
/** Larger bodies go to the app, whose own limit (`bodyLimit`, 1 MB by default) applies. */
const LEAN_BODY_LIMIT = 64 * 1024;
const JSON_TYPE = /^application\/json\s*(;|$)/i;
const FORM_TYPE = /^application\/x-www-form-urlencoded\s*(;|$)/i;
/** co-body's strict JSON: an object or an array. */
const STRICT_JSON = /^[ \t\n\r]*[[{]/;

class MalformedBody extends Error {}
/** Well-formed JSON that is not an object (`null`, `3`, `"x"`, `[]`): every lean route takes an object. */
class NotAnObject extends Error {}

/**
 * JSON as the app's body parser reads it (strict; `__proto__` and `constructor` keys are data, plain own properties
 * as `JSON.parse` makes them): else `MalformedBody`; an object, else `NotAnObject`.
 */
function parseBody(text: string): unknown {
  if (!STRICT_JSON.test(text)) throw isJsonNonObject(text) ? new NotAnObject() : new MalformedBody();
  try {
    const value: unknown = JSON.parse(text);
    if (Array.isArray(value)) throw new NotAnObject();
    return value;
  } catch (err) {
    throw err instanceof NotAnObject ? err : new MalformedBody();
  }
}

const decode = (captures: string[]): string[] | undefined => {
  try {
    return captures.map((c) => decodeURIComponent(c));
  } catch {
    return undefined;
  }
};

/**
 * The server's request handler: the lean routes first, everything else to the Koa app's callback. A lean route
 * keeps the request's deadline as the app does (`requestBudgetMs`, the caller's `x-request-deadline`: decision 132).
 */
export function withLeanRoutes(
  app: Koa,
  routes: LeanRoute[],
  logger: Logger,
  koa: Handler,
  cors?: CorsPolicy,
  requestBudgetMs?: number,
): Handler {
  const observe = requestObserverOf(app);
  return (req, res) => {
    const path = req.url ?? '/';
    let route: LeanRoute | undefined;
    let params: string[] | undefined;
    // A query string (the checkout's `?pretty`) is the app's.
    if (!path.includes('?'))
      for (const r of routes) {
        const match = r.method === req.method ? r.path.exec(path) : null;
        if (match) {
          route = r;
          params = decode(match.slice(1));
          break;
        }
      }
    const lengthHeader = req.headers['content-length'];
    const length = Number(lengthHeader);
    // No body and no type: the app's parser gives `{}` without reading anything.
    const noBody =
      (lengthHeader === undefined || lengthHeader === '0') &&
      req.headers['transfer-encoding'] === undefined &&
      req.headers['content-type'] === undefined;
    if (
      !route ||
      !params ||
      !(
        (noBody && route.bodyless) ||
        ((route.form ? FORM_TYPE : JSON_TYPE).test(req.headers['content-type'] ?? '') &&
          Number.isInteger(length) &&
          length > 0 &&
          length <= LEAN_BODY_LIMIT)
      )
    )
      return koa(req, res);

    const started = performance.now();
    const given = req.headers[REQUEST_ID_HEADER];
    const requestId = typeof given === 'string' && acceptableId.test(given) ? given : newRequestId();
    const deadline = deadlineOf(req.headers[DEADLINE_HEADER], requestBudgetMs);
    const context = deadline === undefined ? { requestId } : { requestId, deadline };
    // One timer for the request's opening and handling (decision 190).
    const limit = deadline === undefined ? undefined : requestDeadline(deadline, 'request');
    const timely = <T>(work: Promise<T>): Promise<T> => (limit ? limit.race(work) : work);
    let opened: unknown;
    let isOpen = false;
    const send = (
      status: number,
      body: unknown,
      headers: Record<string, string> = {},
      json: string | Buffer | readonly Buffer[] = JSON.stringify(body),
      write?: (ctx: Koa.Context) => void,
    ): void => {
      limit?.clear();
      res.statusCode = status;
      res.setHeader(REQUEST_ID_HEADER, requestId);
      // Every 503 says when to try again (decision 132).
      if (status === 503) res.setHeader('Retry-After', RETRY_AFTER_SECONDS);
      for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
      // As the app's CORS middleware answers (decision 118); nothing when CORS is off.
      if (cors) {
        const allowed = cors.answerHeaders(req.headers.origin);
        if (allowed) for (const name in allowed) res.setHeader(name, allowed[name]!);
      }
      if (isOpen && route.headers) for (const [name, value] of Object.entries(route.headers(opened))) res.setHeader(name, value);
      // During a graceful shutdown, a kept-alive socket must not outlive its last response.
      if (isShuttingDown(app)) res.setHeader('Connection', 'close');
      if (write) {
        // The route's own answer: written on the app's context as its route writes it (status, headers, a string body).
        const ctx = app.createContext(req, res);
        ctx.status = status;
        try {
          write(ctx);
        } catch (err) {
          // Answered as the route's handler failing would be, not left hanging.
          return fail(err);
        }
        res.end(ctx.body as string);
      } else {
        res.setHeader('Content-Type', 'application/json; charset=utf-8');
        const whole = typeof json === 'string' || Buffer.isBuffer(json);
        res.setHeader('Content-Length', whole ? Buffer.byteLength(json) : byteLengthOf(json));
        if (whole) res.end(json);
        else {
          // Node corks the socket at a response's first write until the next tick: the head and the parts go
          // out in one writev, as one buffer would.
          for (let i = 0; i < json.length - 1; i++) res.write(json[i]);
          res.end(json[json.length - 1]);
        }
      }
      const ms = performance.now() - started;
      // The status sent: a writer may have set its own (a redirect's 303, a page's 404).
      observe?.(route.method, route.route, res.statusCode, ms / 1000);
      logger.info({ method: req.method, path, status: res.statusCode, ms: Math.round(ms * 10) / 10 }, 'request');
    };
    const errorBody = (): Record<string, unknown> => {
      try {
        return route.errorBody?.(req, isOpen ? opened : undefined) ?? {};
      } catch (err) {
        logger.error({ err }, 'errorBody failed; answering without its members');
        return {};
      }
    };
    /** A failure as the app answers it: a domain error with its code, or as the error middleware does. */
    const fail = (err: unknown): void => {
      if (!isDomainError(err)) {
        // An engine that did not answer in time is a 503 to try again, not a bug.
        const unavailable = unavailableAnswer(err, logger);
        if (unavailable) return send(503, { ...errorBody(), errors: unavailable.fields }, unavailable.headers);
        logger.error({ err }, 'unhandled error');
        return send(500, { ...errorBody(), errors: { server: 'internal error' } });
      }
      const status = statusOfKind[err.kind];
      if (!route.passes?.(err)) return send(status, { code: err.code, errors: err.fields });
      // As the error middleware answers it.
      if (status >= 500) logger.warn({ code: err.code, fields: err.fields }, err.message);
      else logger.debug({ code: err.code, fields: err.fields }, err.message);
      return send(status, { ...errorBody(), errors: err.fields, ...err.extra }, err.headers);
    };

    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= LEAN_BODY_LIMIT) chunks.push(chunk);
    });
    req.on('error', () => {
      limit?.clear();
      res.destroy();
    });
    // `open` runs while the body arrives, as the app's `beforeBody` runs before its body parser.
    const { open } = route;
    let opening: Promise<void> | undefined;
    if (open) {
      opening = withRequestContext(context, async () => {
        opened = await timely(open(req));
        isOpen = true;
      });
      // Settled here so that a failure is not unhandled before the body has arrived; answered at its end.
      opening.catch(() => undefined);
    } else isOpen = true;
    req.on('end', () => {
      void withRequestContext(context, async () => {
        if (opening)
          try {
            await opening;
          } catch (err) {
            return fail(err);
          }
        let body: unknown = {};
        if (!noBody)
          try {
            if (size !== length) throw new MalformedBody();
            const text = Buffer.concat(chunks, size).toString('utf8');
            body = route.form ? Object.fromEntries(new URLSearchParams(text)) : parseBody(text);
          } catch (err) {
            logger.debug({ status: 400 }, 'request rejected');
            return send(400, { ...errorBody(), errors: { body: err instanceof NotAnObject ? NOT_A_JSON_OBJECT : 'malformed JSON' } });
          }
        let answer: unknown;
        try {
          answer = await timely(route.handle(params, body, opened));
        } catch (err) {
          return fail(err);
        }
        const { respond } = route;
        if (respond) send(route.status ?? 200, answer, {}, '', (ctx) => respond(answer, ctx));
        else send(route.status ?? 200, answer, {}, route.json ? route.json(answer) : JSON.stringify(answer));
      });
    });
  };
}
