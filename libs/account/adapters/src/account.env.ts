import { z } from 'zod';
import { ARGON2_DEFAULTS, type Argon2Params } from './argon2.password-hasher';

/**
 * The account service's own variables, for the account and all-in-one config schemas. The argon2id cost
 * defaults to the production floor (19 MiB, t = 2); tests set lower values, a deployment never should.
 */
export const accountEnv = () => ({
  ARGON2_MEMORY_KIB: z.coerce
    .number()
    .int()
    .min(1024)
    .max(4 * 1024 * 1024)
    .default(ARGON2_DEFAULTS.memoryKiB),
  ARGON2_ITERATIONS: z.coerce.number().int().min(1).max(64).default(ARGON2_DEFAULTS.iterations),
});

export const argon2Params = (config: { ARGON2_MEMORY_KIB: number; ARGON2_ITERATIONS: number }): Argon2Params => ({
  memoryKiB: config.ARGON2_MEMORY_KIB,
  iterations: config.ARGON2_ITERATIONS,
  parallelism: 1,
});
