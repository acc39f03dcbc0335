import { DomainError } from '@commerce/shared-errors';

/**
 * Port: how many new sessions one client address may have stored (decision 134). A session costs nothing until its
 * first change stores it; that first store is admitted here, per address in a fixed window (rate-limiter-flexible
 * in memory, or in the sessions' Redis with the session store's commands: decision 182).
 */
export interface NewSessionLimit {
  /** Counts a new session of the address: 0 when admitted, else the seconds until the address may store one again. */
  admit(address: string): Promise<number>;
  /**
   * `admit`, asked in the same round trip as the token's session read, counting only when the token has no stored
   * session: null (nothing counted) when it has one (decision 187). Absent where the store cannot.
   */
  admitUnlessStored?(address: string, token: string): Promise<number | null>;
}

/** Over the limit: 429 with `errors` and `Retry-After` (the shared error middleware answers it); nothing is stored. */
export class TooManySessionsError extends DomainError {
  constructor(readonly retryAfterSeconds: number) {
    super(
      'CHECKOUT.TOO_MANY_SESSIONS',
      'too_many_requests',
      { session: 'too many new sessions from this address, try again later' },
      {},
      { 'Retry-After': String(retryAfterSeconds) },
    );
    this.name = 'TooManySessionsError';
  }
}
