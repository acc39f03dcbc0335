import { randomBytes } from 'node:crypto';
import { DomainError, RETRY_AFTER_SECONDS, TEMPORARILY_UNAVAILABLE } from '@commerce/shared-errors';
import type { Logger } from '@commerce/shared-logging';
import type { MintedToken } from './session-token';

/** What a checkout token carries (selection, country, language, login…); JSON-serialisable. */
export type SessionData = Record<string, unknown>;

/** The session-store port (DESIGN §3): tokens with a sliding TTL, in Redis or in memory. */
export interface SessionStore {
  readonly kind: 'redis' | 'memory';
  /** The session of a token, or null when unknown or expired; a hit slides its TTL. */
  get<T = SessionData>(token: string): Promise<T | null>;
  /**
   * The session of a token and, in the same round trip, the counter its `field` names (`counterPrefix` +
   * the field's value: 0 when never raised; null when the session has no such string field). A hit
   * slides the TTL as `get` does.
   */
  getWithCounter<T = SessionData>(
    token: string,
    field: string,
    counterPrefix: string,
  ): Promise<{ session: T | null; counter: number | null }>;
  /** Writes the session and (re)starts its TTL. */
  set(token: string, data: SessionData): Promise<void>;
  /**
   * A new token, known to `minted` for the TTL without being stored (decision 134): a session is written only at
   * its first change, under the token the visitor was already given. `tag` (at most 2 ASCII characters) travels in it.
   */
  mintToken(tag?: string): string;
  /**
   * The token's tag when this store's key (every replica on one Redis shares it) minted it less than the TTL ago;
   * null for any other token.
   */
  minted(token: string): MintedToken | null;
  delete(token: string): Promise<void>;
  /**
   * A counter's value: 0 when never raised or expired. Counters share the store (every edge replica sees
   * the same value) and the sessions' TTL, restarted by each `raise`; reading does not slide it.
   */
  counter(name: string): Promise<number>;
  /** Raises a counter by one, atomically (concurrent raises all count), and restarts its TTL; the new value. */
  raise(name: string): Promise<number>;
  /**
   * Counts one under `key` (as it is, no prefix) in a fixed window of `windowSeconds` started by the first count,
   * shared by every replica on the store: the count so far and the window's milliseconds left. Redis only, where it
   * goes with the turn's other commands (decision 182); limits elsewhere count on rate-limiter-flexible.
   */
  windowCount?(key: string, windowSeconds: number): Promise<WindowCount>;
  /**
   * `windowCount`, only when the token has no stored session (null, nothing counted, when it has): asked in the same
   * turn as the token's read, a fresh visitor's first change is admitted with it (decision 187). Redis only.
   */
  windowCountUnlessStored?(key: string, windowSeconds: number, token: string): Promise<WindowCount | null>;
  /** Resolves when the store answers; for readiness checks. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** A fixed window's count (`SessionStore.windowCount`): the counts so far, and the window's milliseconds left. */
export interface WindowCount {
  count: number;
  msLeft: number;
}

export interface SessionStoreOptions {
  ttlSeconds: number;
  /** Namespaces the keys, so several stores (or services) can share one Redis. */
  keyPrefix?: string;
  logger?: Logger;
  /** Clock of the memory adapter, in ms; tests inject one to expire sessions without sleeping. */
  now?: () => number;
  /** The memory adapter's key for its tokens (a random one by default); Redis keeps one beside the sessions. */
  tokenKey?: Buffer;
}

export const DEFAULT_KEY_PREFIX = 'session:';

/**
 * How much of its TTL a session may lose before a read slides it again (ms): a tenth of the TTL, at most a
 * minute. A session read many times a second is written back (its expiry) once a minute, not at every
 * read; it still lives at least TTL − slack after its last use.
 */
export const slideSlackMs = (ttlSeconds: number): number => Math.min(60_000, ttlSeconds * 100);

/**
 * The store does not answer. At start-up its one-line message is all runService prints; during a
 * request it maps to 503 like any `unavailable` DomainError.
 */
export class SessionStoreUnavailableError extends DomainError {
  constructor(message: string, options?: { cause?: unknown }) {
    // The client is told to try again, not which engine failed (decision 132); the message, logged, says it.
    super('SESSION_STORE.UNAVAILABLE', 'unavailable', { ...TEMPORARILY_UNAVAILABLE }, {}, { 'Retry-After': RETRY_AFTER_SECONDS });
    this.name = 'SessionStoreUnavailableError';
    this.message = message;
    if (options?.cause !== undefined) (this as { cause?: unknown }).cause = options.cause;
  }
}

/** 32 random bytes, base64url (43 characters): the tokens issued before decision 134, still found while stored. */
export const newSessionToken = (): string => randomBytes(32).toString('base64url');

export function assertTtl(ttlSeconds: number): void {
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1) {
    throw new Error(`session store: ttlSeconds must be a positive integer (got ${ttlSeconds})`);
  }
}
