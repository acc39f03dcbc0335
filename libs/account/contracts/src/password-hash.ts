import { hash } from '@node-rs/argon2';
import { z } from 'zod';

/** argon2id cost (RFC 9106 / OWASP): memory in KiB, iterations, lanes. */
export interface Argon2Params {
  memoryKiB: number;
  iterations: number;
  parallelism: number;
}

/** The production floor (OWASP's argon2id minimum: 19 MiB, t = 2, p = 1); config may only raise it, tests lower it. */
export const ARGON2_DEFAULTS: Argon2Params = { memoryKiB: 19 * 1024, iterations: 2, parallelism: 1 };

/**
 * The argon2id PHC string of a password (`$argon2id$v=19$m=…,t=…,p=…$salt$hash`), through @node-rs/argon2
 * (N-API, prebuilt, on libuv's pool). The account service hashes customers' passwords with it, and
 * backoffice-soap a buyer's password of `accounts_Update` with the same cost (decision 54), so a buyer who
 * never logged in costs a login exactly what anyone else costs. In the contracts because both services write it.
 */
export function hashArgon2id(password: string, params: Argon2Params = ARGON2_DEFAULTS): Promise<string> {
  // No `algorithm`: the binding's default is argon2id (its `Algorithm` is a const enum, which isolated modules cannot read); the tests check the PHC prefix.
  return hash(password, { memoryCost: params.memoryKiB, timeCost: params.iterations, parallelism: params.parallelism });
}

/** The PHC prefix of a hash made with these parameters: a stored hash without it is rehashed at the next login. */
export const argon2Prefix = (params: Argon2Params): string =>
  `$argon2id$v=19$m=${params.memoryKiB},t=${params.iterations},p=${params.parallelism}$`;

/**
 * The argon2id cost variables, for the account, backoffice-soap and all-in-one config schemas: the account
 * service and backoffice-soap must hash with the same cost (decision 54). Defaults: the production floor.
 */
export const argon2Env = () => ({
  ARGON2_MEMORY_KIB: z.coerce
    .number()
    .int()
    .min(1024)
    .max(4 * 1024 * 1024)
    .default(ARGON2_DEFAULTS.memoryKiB)
    .describe(
      "Memory (KiB) of one argon2id hash of a customer's password (p = 1). The defaults (19 MiB, 2 iterations) are OWASP's floor: raise them, never lower them in production (tests do); old hashes keep verifying (decision 34) and are rehashed at the next login. backoffice-soap hashes buyers' passwords of `accounts_Update` with it: **set both services alike**, or a buyer who never logged in is told apart by a login's timing (decision 54).",
    ),
  ARGON2_ITERATIONS: z.coerce
    .number()
    .int()
    .min(1)
    .max(64)
    .default(ARGON2_DEFAULTS.iterations)
    .describe(
      'Iterations of one argon2id password hash; as `ARGON2_MEMORY_KIB`: raise only, and alike in the account service and backoffice-soap.',
    ),
});

export const argon2Params = (config: { ARGON2_MEMORY_KIB: number; ARGON2_ITERATIONS: number }): Argon2Params => ({
  memoryKiB: config.ARGON2_MEMORY_KIB,
  iterations: config.ARGON2_ITERATIONS,
  parallelism: 1,
});
