import { DomainError, type ErrorFields, type ErrorKind } from '@commerce/shared-errors';

export const BackofficeErrorCodes = {
  LOGIN_FAILED: 'BACKOFFICE.LOGIN_FAILED',
  INVALID_ENTITY: 'BACKOFFICE.INVALID_ENTITY',
  MALFORMED_REQUEST: 'BACKOFFICE.MALFORMED_REQUEST',
  UNKNOWN_OPERATION: 'BACKOFFICE.UNKNOWN_OPERATION',
  OPERATION_NOT_IMPLEMENTED: 'BACKOFFICE.OPERATION_NOT_IMPLEMENTED',
  REQUEST_TOO_LARGE: 'BACKOFFICE.REQUEST_TOO_LARGE',
  UNKNOWN_EVENT: 'BACKOFFICE.UNKNOWN_EVENT',
  UNSUPPORTED_ENCODING: 'BACKOFFICE.UNSUPPORTED_ENCODING',
  LOGIN_RATE_LIMITED: 'BACKOFFICE.LOGIN_RATE_LIMITED',
} as const;

/**
 * A failure the integrating system caused (a SOAP `Client` fault). `reason` is the one-line text a
 * fault's `faultstring` carries: it names what was wrong without revealing anything internal.
 */
export abstract class BackofficeError extends DomainError {
  constructor(
    code: string,
    kind: ErrorKind,
    fields: ErrorFields,
    readonly reason: string,
  ) {
    super(code, kind, fields);
    this.name = new.target.name;
  }
}

/** Same error for an unknown user and a wrong password, so a caller cannot probe for user names. */
export class LoginFailedError extends BackofficeError {
  constructor() {
    super(BackofficeErrorCodes.LOGIN_FAILED, 'forbidden', { login: 'login failed' }, 'login failed');
  }
}

export interface EntityProblem {
  /** Dotted path inside the entity, e.g. `variations.0.id`. */
  field: string;
  problem: string;
}

/** One entity of a batch broke its schema; the whole batch is refused. */
export class InvalidEntityError extends BackofficeError {
  constructor(
    readonly list: string,
    readonly index: number,
    readonly externalId: string | undefined,
    readonly problems: EntityProblem[],
  ) {
    const where = `${list}[${index}]${externalId ? ` (id ${externalId})` : ''}`;
    const fields: ErrorFields = {};
    for (const p of problems) fields[`${list}[${index}]${p.field ? `.${p.field}` : ''}`] ??= p.problem;
    const first = problems[0];
    super(
      BackofficeErrorCodes.INVALID_ENTITY,
      'invalid',
      fields,
      first ? `${where}: ${first.field ? `${first.field} ` : ''}${first.problem}` : `${where}: invalid`,
    );
  }
}

/** Not XML, not a SOAP envelope, or not the shape an operation expects. */
export class MalformedRequestError extends BackofficeError {
  constructor(reason: string) {
    super(BackofficeErrorCodes.MALFORMED_REQUEST, 'invalid', { request: reason }, reason);
  }
}

/** An operation the spec does not list, or one that disagrees with the SOAPAction header. */
export class UnknownOperationError extends BackofficeError {
  constructor(reason: string) {
    super(BackofficeErrorCodes.UNKNOWN_OPERATION, 'not_found', { operation: reason }, reason);
  }
}

/** An operation of the spec that this build does not serve yet. */
export class OperationNotImplementedError extends BackofficeError {
  constructor(operation: string) {
    const reason = `operation not implemented yet: ${operation}`;
    super(BackofficeErrorCodes.OPERATION_NOT_IMPLEMENTED, 'not_found', { operation: reason }, reason);
  }
}

/** A request body over the size limit (as sent, or once decompressed); the ERP should send smaller batches. */
export class RequestTooLargeError extends BackofficeError {
  constructor(limitBytes: number, what = 'request body') {
    const reason = `${what} larger than ${limitBytes} bytes; send smaller batches`;
    super(BackofficeErrorCodes.REQUEST_TOO_LARGE, 'too_large', { request: reason }, reason);
  }
}

/** A `Content-Encoding` other than gzip, deflate or identity. */
export class UnsupportedEncodingError extends BackofficeError {
  constructor(encoding: string) {
    const reason = `Content-Encoding ${encoding.slice(0, 40)} is not supported; send identity, gzip or deflate`;
    super(BackofficeErrorCodes.UNSUPPORTED_ENCODING, 'invalid', { request: reason }, reason);
  }
}

/** `events_Done` named event numbers the feed never had; nothing of that call was marked done. */
export class UnknownEventError extends BackofficeError {
  constructor(readonly unknown: readonly string[]) {
    const shown = unknown.slice(0, 10).join(', ') + (unknown.length > 10 ? ', …' : '');
    const reason = `unknown event number${unknown.length > 1 ? 's' : ''}: ${shown}; nothing was marked done`;
    super(BackofficeErrorCodes.UNKNOWN_EVENT, 'not_found', { event: reason }, reason);
  }
}

/** Too many failed logins from one client address or for one user name; retry after `retryAfterSeconds`. */
export class LoginRateLimitedError extends BackofficeError {
  constructor(readonly retryAfterSeconds: number) {
    const reason = `too many failed logins; retry after ${retryAfterSeconds} s`;
    super(BackofficeErrorCodes.LOGIN_RATE_LIMITED, 'forbidden', { login: reason }, reason);
  }
}

export const isBackofficeError = (e: unknown): e is BackofficeError => e instanceof BackofficeError;
