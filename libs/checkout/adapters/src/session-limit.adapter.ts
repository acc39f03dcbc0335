import { RateLimiterRes } from 'rate-limiter-flexible';
import type { SessionStore, WindowCount } from '@commerce/shared-sessions';
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
 * The new-session limit (decision 134): a fixed window per client address, in memory (`memory`, rate-limiter-flexible)
 * or in the sessions' Redis, so every replica of the edge counts the same sessions. On Redis a session store that
 * counts windows (`store.windowCount`) counts it in the turn's one script with the sessions' reads and writes
 * (decisions 177, 182), with rate-limiter-flexible's key and script; else rate-limiter-flexible on a client of its own.
 * Undefined when `perAddress` is 0. A store that does not answer admits: the session's own write then fails as it
 * would anyway.
 */
export function createSessionLimit(
  redisUrl: string,
  limits: NewSessionLimits,
  options: { keyPrefix?: string; store?: Pick<SessionStore, 'windowCount' | 'windowCountUnlessStored'> } = {},
): ClosableNewSessionLimit | undefined {
  if (limits.perAddress === 0) return undefined;
  const keyPrefix = options.keyPrefix ?? 'session-new';
  const windowCount = options.store?.windowCount?.bind(options.store);
  const unlessStored = options.store?.windowCountUnlessStored?.bind(options.store);
  const waitOf = ({ count, msLeft }: WindowCount) => (count > limits.perAddress ? Math.max(1, Math.ceil(msLeft / 1000)) : 0);
  if (redisUrl !== 'memory' && windowCount)
    return {
      async admit(address) {
        try {
          // rate-limiter-flexible's key (`getKey`): replicas still on it count with this one.
          return waitOf(await windowCount(`${keyPrefix}:${address}`, limits.windowSeconds));
        } catch {
          return 0;
        }
      },
      // With the token's read, when the token has no session yet (decision 187).
      ...(unlessStored
        ? {
            async admitUnlessStored(address: string, token: string) {
              try {
                const counted = await unlessStored(`${keyPrefix}:${address}`, limits.windowSeconds, token);
                return counted && waitOf(counted);
              } catch {
                return 0;
              }
            },
          }
        : {}),
      close: async () => undefined,
    };
  const limiters = rateLimiters(redisUrl);
  const addresses = limiters.limiter(keyPrefix, limits.perAddress, limits.windowSeconds);
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
