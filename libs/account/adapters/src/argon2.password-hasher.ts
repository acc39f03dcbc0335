import { verify } from '@node-rs/argon2';
import { verifyScryptPassword } from '@commerce/erp-contracts';
import { ARGON2_DEFAULTS, argon2Prefix, hashArgon2id, type Argon2Params } from '@commerce/account-contracts';
import type { PasswordHasher } from '@commerce/account-core';

export { ARGON2_DEFAULTS, type Argon2Params };

/**
 * argon2id through @node-rs/argon2 (N-API, prebuilt): the hashing runs on libuv's thread pool, so a login
 * never blocks the event loop. The PHC string carries its parameters, so raising them later still verifies old hashes.
 */
export function createArgon2Hasher(params: Argon2Params = ARGON2_DEFAULTS): PasswordHasher {
  const current = argon2Prefix(params);
  return {
    hash: (password) => hashArgon2id(password, params),
    verify: async (passwordHash, password) => {
      // A buyer's password from accounts_Update before decision 54 arrived as backoffice-soap's scrypt hash (decision 30).
      if (passwordHash.startsWith('scrypt$')) return verifyScryptPassword(password, passwordHash);
      try {
        return await verify(passwordHash, password);
      } catch {
        return false;
      }
    },
    // A scrypt hash, or argon2id of another cost (raised since, or a backoffice-soap configured apart).
    needsRehash: (passwordHash) => !passwordHash.startsWith(current),
  };
}
