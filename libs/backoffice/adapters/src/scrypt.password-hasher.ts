import { createHmac, randomBytes } from 'node:crypto';
import { SCRYPT_PARAMS, hashScryptPassword, verifyScryptPassword, type ScryptParams } from '@commerce/erp-contracts';
import type { PasswordHasher } from '@commerce/backoffice-core';

// The hash form itself lives in the contracts: the account service reads buyers' hashes (decision 30).
export { SCRYPT_PARAMS, hashScryptPassword as hashPassword, verifyScryptPassword as verifyPassword };

/**
 * The SOAP password hasher. Every SOAP request carries the password, and an ERP sends many batches a
 * minute, so successful checks are remembered (keyed by an HMAC under a per-process random key, never the
 * password itself) and a known-good login costs one HMAC instead of one scrypt run. A wrong password is
 * never remembered: each one costs the full work.
 */
export function createScryptPasswordHasher(options: { rememberVerified?: number; params?: ScryptParams } = {}): PasswordHasher {
  const capacity = options.rememberVerified ?? 64;
  const params = options.params ?? SCRYPT_PARAMS;
  const processKey = randomBytes(32);
  const verified = new Set<string>();
  const fingerprint = (plain: string, encoded: string) =>
    createHmac('sha256', processKey).update(encoded).update('\0').update(plain).digest('base64');
  return {
    hash: (plain) => hashScryptPassword(plain, params),
    async verify(plain, encoded) {
      const mark = fingerprint(plain, encoded);
      if (verified.has(mark)) return true;
      const ok = await verifyScryptPassword(plain, encoded);
      if (ok && capacity > 0) {
        if (verified.size >= capacity) verified.delete(verified.values().next().value as string);
        verified.add(mark);
      }
      return ok;
    },
  };
}
