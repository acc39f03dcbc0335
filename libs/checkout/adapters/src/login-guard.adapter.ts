import Redis from 'ioredis';
import { z } from 'zod';
import { boundedInt } from '@commerce/shared-config';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { LoginGuard } from '@commerce/checkout-core';
import { instrumentRedis, REDIS_COMMAND_TIMEOUT_MS } from '@commerce/shared-sessions';

export interface LoginLimits {
  /** Failed logins an account may have in `accountWindowSeconds` (the issue: at most 100 an hour). */
  failsPerAccount: number;
  accountWindowSeconds: number;
  /** Failed logins and registrations one client address may make in `addressWindowSeconds`. */
  attemptsPerAddress: number;
  addressWindowSeconds: number;
}

/** The limits' variables, for the checkout-api and all-in-one config schemas. */
export const loginGuardEnv = () => ({
  LOGIN_FAILS_PER_ACCOUNT: boundedInt(1, 100, 100).describe(
    'Failed logins an account (e-mail) may have in `LOGIN_ACCOUNT_WINDOW_SECONDS`; over it `login` is 429 with `Retry-After` (decision 37).',
  ),
  LOGIN_ACCOUNT_WINDOW_SECONDS: z.coerce.number().int().min(60).default(3600).describe('The window (s) of `LOGIN_FAILS_PER_ACCOUNT`.'),
  LOGIN_ATTEMPTS_PER_ADDRESS: z.coerce
    .number()
    .int()
    .min(1)
    .default(50)
    .describe(
      'Failed logins plus registrations one client address may make in `LOGIN_ADDRESS_WINDOW_SECONDS`; counted in Redis when `REDIS_URL` is Redis.',
    ),
  LOGIN_ADDRESS_WINDOW_SECONDS: z.coerce.number().int().min(60).default(900).describe('The window (s) of `LOGIN_ATTEMPTS_PER_ADDRESS`.'),
  /** `true` behind one ingress that appends the client's address to `X-Forwarded-For`: the address limit counts per that address. */
  LOGIN_TRUST_PROXY: z
    .enum(['true', 'false', '1', '0', ''])
    .default('false')
    .describe(
      "`true` behind one ingress that appends the client to `X-Forwarded-For`: the address limits (logins, new sessions) and GeoIP (`GEOIP_DB`) use that address. Set it behind an ingress, else every visitor is the ingress's address and shares its limits.",
    )
    .transform((v) => v === 'true' || v === '1'),
});

export const loginLimits = (config: {
  LOGIN_FAILS_PER_ACCOUNT: number;
  LOGIN_ACCOUNT_WINDOW_SECONDS: number;
  LOGIN_ATTEMPTS_PER_ADDRESS: number;
  LOGIN_ADDRESS_WINDOW_SECONDS: number;
}): LoginLimits => ({
  failsPerAccount: config.LOGIN_FAILS_PER_ACCOUNT,
  accountWindowSeconds: config.LOGIN_ACCOUNT_WINDOW_SECONDS,
  attemptsPerAddress: config.LOGIN_ATTEMPTS_PER_ADDRESS,
  addressWindowSeconds: config.LOGIN_ADDRESS_WINDOW_SECONDS,
});

export type ClosableLoginGuard = LoginGuard & { kind: 'memory' | 'redis'; close(): Promise<void> };

/**
 * The login's guessing limits on rate-limiter-flexible: in memory (`memory`: one process, the all-in-one)
 * or in Redis (`redis://…`), so that every replica of the edge counts the same attempts. Fixed windows
 * that start at the first counted attempt.
 */
export function createLoginGuard(redisUrl: string, limits: LoginLimits, options: { keyPrefix?: string } = {}): ClosableLoginGuard {
  const prefix = options.keyPrefix ?? 'login';
  const limiters = rateLimiters(redisUrl);
  const accounts = limiters.limiter(`${prefix}:account`, limits.failsPerAccount, limits.accountWindowSeconds);
  const addresses = limiters.limiter(`${prefix}:address`, limits.attemptsPerAddress, limits.addressWindowSeconds);

  const secondsBlocked = async (l: RateLimiterAbstract, points: number, key: string) => {
    const state = await l.get(key);
    return state && state.consumedPoints >= points ? Math.max(1, Math.ceil(state.msBeforeNext / 1000)) : 0;
  };
  return {
    kind: redisUrl === 'memory' ? 'memory' : 'redis',
    async blockedFor(account, address) {
      const [a, b] = await Promise.all([
        account === null ? 0 : secondsBlocked(accounts, limits.failsPerAccount, account),
        secondsBlocked(addresses, limits.attemptsPerAddress, address),
      ]);
      return Math.max(a, b);
    },
    async failed(account, address) {
      await Promise.all([...(account === null ? [] : [accounts.penalty(account, 1)]), addresses.penalty(address, 1)]);
    },
    close: limiters.close,
  };
}

/**
 * rate-limiter-flexible's fixed windows, in memory (`memory`: one process) or in Redis (`redis://…`: every replica
 * counts together), the Redis ones of one call on one client, made at the first.
 */
export function rateLimiters(redisUrl: string) {
  let redis: Redis | undefined;
  return {
    limiter(keyPrefix: string, points: number, duration: number): RateLimiterAbstract {
      const settings = { keyPrefix, points, duration };
      if (redisUrl === 'memory') return new RateLimiterMemory(settings);
      // A stalled Redis fails a limit's check in 1 s, within the edge's budget (decision 132).
      redis ??= instrumentRedis(
        new Redis(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: REDIS_COMMAND_TIMEOUT_MS }),
      );
      return new RateLimiterRedis({ ...settings, storeClient: redis });
    },
    async close() {
      await redis?.quit().catch(() => undefined);
    },
  };
}
