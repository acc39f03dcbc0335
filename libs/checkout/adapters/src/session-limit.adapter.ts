import { RateLimiterRes } from 'rate-limiter-flexible';
import type { NewSessionLimit } from '@commerce/checkout-core';
import { rateLimiters } from './login-guard.adapter';

export interface NewSessionLimits {
  /** New sessions one client address may store in `windowSeconds`; 0: no limit. */
  perAddress: number;
  windowSeconds: number;
}

export const sessionLimits = (config: { SESSION_NEW_PER_ADDRESS: number; SESSION_NEW_WINDOW_SECONDS: number }): NewSessionLimits => ({
  perAddress: config.SESSION_NEW_PER_ADDRESS,
  windowSeconds: config.SESSION_NEW_WINDOW_SECONDS,
});

export type ClosableNewSessionLimit = NewSessionLimit & { close(): Promise<void> };

/**
 * The new-session limit (decision 134) on rate-limiter-flexible: a fixed window per client address, in memory
 * (`memory`) or in the sessions' Redis, so every replica of the edge counts the same sessions. Undefined when
 * `perAddress` is 0. A store that does not answer admits: the session's own write then fails as it would anyway.
 */
export function createSessionLimit(
  redisUrl: string,
  limits: NewSessionLimits,
  options: { keyPrefix?: string } = {},
): ClosableNewSessionLimit | undefined {
  if (limits.perAddress === 0) return undefined;
  const limiters = rateLimiters(redisUrl);
  const addresses = limiters.limiter(options.keyPrefix ?? 'session-new', limits.perAddress, limits.windowSeconds);
  return {
    async admit(address) {
      try {
        await addresses.consume(address);
        return 0;
      } catch (over: unknown) {
        return over instanceof RateLimiterRes ? Math.max(1, Math.ceil(over.msBeforeNext / 1000)) : 0;
      }
    },
    close: limiters.close,
  };
}
