import { randomBytes } from 'node:crypto';
import { Router, type RouterContext } from '@koa/router';
import { type ReceivableEntity } from '@commerce/erp-contracts';
import { DEFAULT_SOAP_PATH } from '@commerce/backoffice-contracts';
import {
  LoginFailedError,
  LoginRateLimitedError,
  LoginThrottle,
  MalformedRequestError,
  RECEIVE_CHUNK,
  RequestTooLargeError,
  UnsupportedEncodingError,
  verifySoapLogin,
  type PasswordHasher,
  type SoapUser,
} from '@commerce/backoffice-core';
import { newRequestId, withRequestContext, type Logger } from '@commerce/shared-logging';
import { raceDeadline } from '@commerce/shared-http';
import { DeadlineExceededError, RETRY_AFTER_SECONDS, unavailableCause } from '@commerce/shared-errors';
import { buildWsdl } from './backoffice.wsdl';
import { parseSoapEnvelope } from './soap-envelope';
import { checkSoapText, DEFAULT_BODY_LIMITS, discardRest, readSoapBody, type SoapBody, type SoapBodyLimits } from './soap-body.reader';
import type { XmlLimits } from './xml-prescan';
import {
  checkSoapAction,
  eventsDoneHandler,
  eventsGetByMarketsHandler,
  eventsGetHandler,
  handlerFor,
  operationOfElement,
  UPDATE_OPERATIONS,
  updateHandler,
  updateListOf,
  type GetEvents,
  type SoapHandler,
  type SoapOperationName,
} from './soap-operations';
import { faultOf, soapFault, soapSuccess, soapSuccessXml } from './soap-reply';
import { createScryptPasswordHasher } from '../scrypt.password-hasher';
import type { XmlNode } from './soap-xml.mapper';
import { StreamedUpdate, type StreamStart } from './soap-streamed-update';

export interface SoapRouterDeps {
  /** The `*_Update` use case, bound to its store: validates a batch of one entity and resolves once it is durable. */
  receiveEntities: (entity: ReceivableEntity, entities: unknown[], requestId: string) => Promise<unknown>;
  /**
   * The same use case for a batch handed over in parts as the request's parse builds them (decision 91):
   * validated and stored part by part in one transaction, resolving once it is committed. Absent: every
   * batch is parsed whole, then received.
   */
  receiveEntityParts?: (entity: ReceivableEntity, parts: AsyncIterable<readonly unknown[]>, requestId: string) => Promise<unknown>;
  /** How many entities the parse hands over at a time (default: the use case's RECEIVE_CHUNK). */
  streamPartSize?: number;
  /** `events_Get` / `events_GetByMarkets`, bound to the feed; absent: those operations are not served. */
  getEvents?: GetEvents;
  /** `events_Done`, bound to the feed. */
  markEventsDone?: (username: string, numbers: string[]) => Promise<void>;
  users: readonly SoapUser[];
  namespace: string;
  /** X-Correlation-ID is this prefix plus the request id. */
  correlationPrefix?: string;
  logger: Logger;
  soapPath?: string;
  /** The endpoint URL written into the WSDL; by default the URL the WSDL was asked at. */
  publicUrl?: () => string;
  hasher?: PasswordHasher;
  /** The client address is the last entry of X-Forwarded-For (one trusted ingress in front), not the socket's. */
  trustProxy?: boolean;
  /** Failed-login limits per client address and per user (default: 10 and 20 a minute). */
  loginThrottle?: LoginThrottle;
  /** Largest request body read, in bytes, as sent and once decompressed (default 10 MB). */
  bodyLimit?: number;
  /** Caps on the XML's depth, element count, attributes per element and name length (DEFAULT_XML_LIMITS). */
  xmlLimits?: Partial<XmlLimits>;
  /**
   * The time a request is given once its body is read (decision 142): `baseMs` and `perMbMs` for each MB of the XML
   * (a batch's parse and store grow with it). Past it the answer is a `Server` Fault with `Retry-After`, and what the
   * request waits on is told the time left (a `Db.query` statement gives up then). Absent: no budget.
   */
  budget?: { baseMs: number; perMbMs: number };
}

export const DEFAULT_CORRELATION_PREFIX = 'backoffice-soap-';
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The body as text: read, decompressed and pre-scanned as it arrives (or checked, when a parser in front read it). */
function readBody(ctx: RouterContext, limits: SoapBodyLimits): Promise<SoapBody> {
  const raw = (ctx.request as { rawBody?: unknown }).rawBody;
  if (typeof raw === 'string') return Promise.resolve(checkSoapText(raw, limits));
  return readSoapBody(ctx.req, limits);
}

/** HTTP status of a fault: SOAP 1.1 says 500; a few transport-level refusals say what they are. */
function statusOf(error: unknown): number {
  if (error instanceof RequestTooLargeError) return 413;
  if (error instanceof UnsupportedEncodingError) return 415;
  if (error instanceof LoginRateLimitedError) return 429;
  return 500;
}

function requestIdOf(ctx: RouterContext): string {
  const fromState = (ctx.state as { requestId?: unknown }).requestId;
  if (typeof fromState === 'string' && fromState) return fromState;
  const header = ctx.get('x-request-id');
  return REQUEST_ID.test(header) ? header : newRequestId();
}

/** Whom failed logins are counted against: the socket's peer, or what the one trusted ingress appended. */
function clientAddress(ctx: RouterContext, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = ctx.get('x-forwarded-for').split(',').pop()?.trim();
    if (forwarded) return forwarded.slice(0, 64);
  }
  return ctx.req.socket.remoteAddress ?? 'unknown';
}

const isElementObject = (node: unknown): node is Record<string, XmlNode> =>
  typeof node === 'object' && node !== null && !Array.isArray(node);

const text = (node: XmlNode | undefined): string => (typeof node === 'string' ? node : '');

/**
 * The back-office SOAP 1.1 endpoint: `POST {soapPath}` runs an operation, `GET {soapPath}?wsdl` serves
 * the WSDL. It only parses, authenticates, calls the use case and maps the outcome to a reply or a Fault.
 */
export function createSoapRouter(deps: SoapRouterDeps): Router {
  const soapPath = deps.soapPath ?? DEFAULT_SOAP_PATH;
  const prefix = deps.correlationPrefix ?? DEFAULT_CORRELATION_PREFIX;
  const hasher = deps.hasher ?? createScryptPasswordHasher();
  const limits: SoapBodyLimits = {
    maxBodyBytes: deps.bodyLimit ?? DEFAULT_BODY_LIMITS.maxBodyBytes,
    maxXmlBytes: deps.bodyLimit ?? DEFAULT_BODY_LIMITS.maxXmlBytes,
    xml: { ...DEFAULT_BODY_LIMITS.xml, ...deps.xmlLimits },
  };
  const throttle = deps.loginThrottle ?? new LoginThrottle();
  // What an unknown user's password is checked against: same parameters as a real hash, matched by nothing.
  const dummyHash = hasher.hash(randomBytes(32).toString('base64'));
  dummyHash.catch(() => undefined);

  async function authenticate(ctx: RouterContext, username: string, password: string): Promise<SoapUser> {
    const address = clientAddress(ctx, deps.trustProxy ?? false);
    throttle.check(address, username);
    try {
      const user = await verifySoapLogin(deps.users, username, password, hasher, await dummyHash);
      throttle.succeeded(address, username);
      return user;
    } catch (error) {
      if (error instanceof LoginFailedError) throttle.failed(address, username);
      throw error;
    }
  }

  function credentialsOf(payload: XmlNode): { username: string; password: string } {
    const element = isElementObject(payload) ? payload['login'] : undefined;
    const fields = isElementObject(element) ? element : {};
    return { username: text(fields['username']), password: text(fields['password']) };
  }

  /** The login the parser read; when the pre-scan already checked one, it must be that very login. */
  async function login(ctx: RouterContext, payload: XmlNode, early: { user: SoapUser; username: string; password: string } | undefined) {
    const parsed = credentialsOf(payload);
    if (!early) return authenticate(ctx, parsed.username, parsed.password);
    if (parsed.username !== early.username || parsed.password !== early.password) throw new LoginFailedError();
    return early.user;
  }

  const handlers: Partial<Record<SoapOperationName, SoapHandler>> = Object.fromEntries(
    UPDATE_OPERATIONS.map((op) => [
      op.name,
      updateHandler({
        ...op,
        receive: async (entities, context) => {
          // The batch the parse already handed to the store, when it is exactly this one; else as always.
          const taken = await context.streamed?.take(entities);
          return taken ? taken.outcome : deps.receiveEntities(op.entity, entities, context.requestId);
        },
      }),
    ]),
  );
  if (deps.getEvents) {
    handlers.events_Get = eventsGetHandler(deps.getEvents);
    handlers.events_GetByMarkets = eventsGetByMarketsHandler(deps.getEvents);
  }
  if (deps.markEventsDone) handlers.events_Done = eventsDoneHandler(deps.markEventsDone);

  /**
   * Whether a request's batch is handed to the store as it is parsed (decision 91): only once its login was
   * checked before the parse, for an `*_Update` served here whose SOAPAction names it; anything else is
   * parsed whole and handled as before, so a mismatched operation's handler is never called.
   */
  const streamStart =
    (ctx: RouterContext, requestId: string): StreamStart =>
    (element) => {
      const receiveParts = deps.receiveEntityParts;
      if (!receiveParts) return undefined;
      let update: (typeof UPDATE_OPERATIONS)[number] | undefined;
      try {
        const operation = operationOfElement(element);
        checkSoapAction(ctx.get('soapaction') || undefined, operation);
        update = UPDATE_OPERATIONS.find((op) => op.name === operation.name);
      } catch {
        return undefined;
      }
      if (!update || !handlers[update.name]) return undefined;
      return (parts) => receiveParts(update.entity, parts, requestId);
    };

  const router = new Router();

  router.get(soapPath, (ctx) => {
    if (!Object.keys(ctx.query).some((k) => k.toLowerCase() === 'wsdl')) {
      ctx.status = 400;
      ctx.type = 'text/plain';
      ctx.body = `SOAP endpoint: POST SOAP 1.1 envelopes here; the WSDL is at ${soapPath}?wsdl\n`;
      return;
    }
    const location = deps.publicUrl?.() ?? `${ctx.protocol}://${ctx.host}${soapPath}`;
    ctx.type = 'text/xml; charset=utf-8';
    ctx.body = buildWsdl({ namespace: deps.namespace, location });
  });

  router.post(soapPath, async (ctx) => {
    const requestId = requestIdOf(ctx);
    const started = performance.now();
    ctx.set('X-Service-Request-ID', requestId);
    ctx.set('X-Correlation-ID', `${prefix}${requestId}`);
    ctx.type = 'text/xml; charset=utf-8';
    await withRequestContext({ requestId }, async () => {
      let operationName: string | undefined;
      let bodyRead = false;
      let streamed: StreamedUpdate | undefined;
      try {
        const body = await readBody(ctx, limits);
        bodyRead = true;
        const read = performance.now();
        // The budget counts from here: the upload's time is the ERP's network's, the rest grows with the XML.
        const deadline = deps.budget ? Date.now() + deps.budget.baseMs + (deps.budget.perMbMs * body.text.length) / 1_000_000 : undefined;
        let givenUp = false;
        const work = async () => {
          // A login the pre-scan could read is checked before the document is parsed: a stranger's large
          // document costs no parse.
          const early = body.login && { ...body.login, user: await authenticate(ctx, body.login.username, body.login.password) };
          const parseStarted = performance.now();
          if (early && deps.receiveEntityParts)
            streamed = new StreamedUpdate(streamStart(ctx, requestId), deps.streamPartSize ?? RECEIVE_CHUNK);
          const { operation: element, payload } = streamed
            ? await streamed.parse(body.text, limits.xml)
            : parseSoapEnvelope(body.text, limits.xml, updateListOf);
          const parsed = performance.now();
          const operation = operationOfElement(element);
          operationName = operation.name;
          checkSoapAction(ctx.get('soapaction') || undefined, operation);
          const user = await login(ctx, payload, early);
          const handler = handlerFor(operation, handlers);
          if (!isElementObject(payload))
            throw new MalformedRequestError(`${operation.request} must hold login and the operation's parameters`);
          const { login: _login, ...parameters } = payload;
          const answer = await handler(parameters, { requestId, username: user.username, ...(streamed ? { streamed } : {}) });
          // Answered with a Fault at the budget already: this late outcome goes to nobody.
          if (givenUp) return;
          ctx.status = 200;
          ctx.body =
            typeof answer === 'string'
              ? soapSuccess(operation.response, deps.namespace, answer)
              : soapSuccessXml(operation.response, deps.namespace, answer.xml);
          deps.logger.info(
            {
              operation: operation.name,
              user: user.username,
              ms: Math.round(performance.now() - started),
              // Where the time went: reading the body (with its streaming checks), the parse, the operation itself.
              readMs: Math.round(read - started),
              parseMs: Math.round(parsed - parseStarted),
              handleMs: Math.round(performance.now() - parsed),
            },
            'soap operation done',
          );
        };
        if (deadline === undefined) await work();
        else
          await raceDeadline(withRequestContext({ requestId, deadline }, work), deadline, 'soap request').catch((error: unknown) => {
            givenUp = error instanceof DeadlineExceededError;
            throw error;
          });
      } catch (error) {
        // A batch handed over while parsing and not taken by the handler: rolled back before the answer; past the
        // budget, without waiting for it (the database may be what does not answer).
        if (error instanceof DeadlineExceededError) void streamed?.cancel().catch(() => undefined);
        else await streamed?.cancel();
        const fault = faultOf(error);
        const unavailable =
          unavailableCause(error) ??
          (error instanceof DeadlineExceededError ? { dependency: error.dependency, reason: error.message } : undefined);
        if (unavailable)
          deps.logger.warn(
            { operation: operationName, ...unavailable },
            `soap operation failed: ${unavailable.dependency} did not answer (${unavailable.reason})`,
          );
        else if (fault.faultcode === 'Server') deps.logger.error({ err: error, operation: operationName }, 'soap operation failed');
        else deps.logger.warn({ operation: operationName, code: fault.code, reason: fault.faultstring }, 'soap request refused');
        // SOAP 1.1 over HTTP: a Fault is a 500, whoever was at fault; an oversized body says 413, an
        // unknown Content-Encoding 415, and too many failed logins 429 with Retry-After.
        ctx.status = statusOf(error);
        // A body refused while arriving: drop the rest (bounded) so the client can read this answer.
        // `Connection: close` would make Node close the socket with bytes unread, and the reset loses the answer.
        if (!bodyRead) discardRest(ctx.req);
        if (error instanceof LoginRateLimitedError) ctx.set('Retry-After', String(error.retryAfterSeconds));
        if (unavailable) ctx.set('Retry-After', RETRY_AFTER_SECONDS);
        ctx.type = 'text/xml; charset=utf-8';
        ctx.body = soapFault(fault, deps.namespace);
      }
    });
  });

  return router;
}
