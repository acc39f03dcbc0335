import { hash, verify } from '@node-rs/argon2';
import { verifyScryptPassword } from '@commerce/backoffice-contracts';
import type { PasswordHasher } from '@commerce/account-core';

/** argon2id cost (RFC 9106 / OWASP): memory in KiB, iterations, lanes. */
export interface Argon2Params {
  memoryKiB: number;
  iterations: number;
  parallelism: number;
}

/** The production floor (OWASP's argon2id minimum: 19 MiB, t = 2, p = 1); config may only raise it, tests lower it. */
export const ARGON2_DEFAULTS: Argon2Params = { memoryKiB: 19 * 1024, iterations: 2, parallelism: 1 };

/**
 * argon2id through @node-rs/argon2 (N-API, prebuilt): the hashing runs on libuv's thread pool, so a login
 * never blocks the event loop. The PHC string carries its parameters, so raising them later still verifies old hashes.
 */
export function createArgon2Hasher(params: Argon2Params = ARGON2_DEFAULTS): PasswordHasher {
  // No `algorithm`: the binding's default is argon2id (its `Algorithm` is a const enum, which isolated modules cannot read); the test checks the PHC prefix.
  const options = {
    memoryCost: params.memoryKiB,
    timeCost: params.iterations,
    parallelism: params.parallelism,
  };
  return {
    hash: (password) => hash(password, options),
    verify: async (passwordHash, password) => {
      // A buyer's password from accounts_Update arrives as backoffice-soap's scrypt hash (decision 30).
      if (passwordHash.startsWith('scrypt$')) return verifyScryptPassword(password, passwordHash);
      try {
        return await verify(passwordHash, password);
      } catch {
        return false;
      }
    },
  };
}
