import { DomainError } from '@commerce/shared-errors';

/**
 * Port: the guessing limits of the login (decision 37). Counts failed logins per account (the e-mail as
 * typed, lower-cased, whether or not a customer has it) and attempts per client address (failed logins
 * and registrations); rate-limiter-flexible in memory or in Redis.
 */
export interface LoginGuard {
  /** Seconds until the account (when given) and the address may try again; 0 when they may now. */
  blockedFor(account: string | null, address: string): Promise<number>;
  /** Counts a failed login or a registration attempt. */
  failed(account: string | null, address: string): Promise<void>;
}

/** Over a limit: 429 with `errors` and `Retry-After` (the shared error middleware answers it). */
export class TooManyAttemptsError extends DomainError {
  constructor(
    readonly field: string,
    readonly retryAfterSeconds: number,
  ) {
    super(
      'CHECKOUT.TOO_MANY_ATTEMPTS',
      'too_many_requests',
      { [field]: 'too many attempts, try again later' },
      {},
      {
        'Retry-After': String(retryAfterSeconds),
      },
    );
    this.name = 'TooManyAttemptsError';
  }
}
