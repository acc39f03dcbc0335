import { createHmac, randomBytes, scrypt, timingSafeEqual, type BinaryLike } from 'node:crypto';
import type { PasswordHasher } from '@commerce/backoffice-core';

const SALT_BYTES = 16;
const KEY_BYTES = 64;
// node's defaults (N=16384, r=8, p=1): ~50 ms a check, 16 MB of memory.
const SCRYPT_OPTIONS = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

function scryptAsync(password: BinaryLike, salt: Buffer, keylen: number): Promise<Buffer> {
  return new Promise((resolve, reject) => scrypt(password, salt, keylen, SCRYPT_OPTIONS, (err, key) => (err ? reject(err) : resolve(key))));
}

/** `scrypt$<saltB64>$<hashB64>`, the form the store configuration keeps SOAP passwords in. */
export async function hashPassword(plain: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await scryptAsync(plain, salt, KEY_BYTES);
  return `scrypt$${salt.toString('base64')}$${key.toString('base64')}`;
}

/** True when plain matches encoded; false for a wrong password or a malformed hash. */
export async function verifyPassword(plain: string, encoded: string): Promise<boolean> {
  const parts = encoded.split('$');
  if (parts.length !== 3 || parts[0] !== 'scrypt') return false;
  const salt = Buffer.from(parts[1] ?? '', 'base64');
  const expected = Buffer.from(parts[2] ?? '', 'base64');
  if (salt.length === 0 || expected.length === 0) return false;
  const actual = await scryptAsync(plain, salt, expected.length);
  return timingSafeEqual(actual, expected);
}

/**
 * The SOAP password hasher. Every SOAP request carries the password, and an ERP sends many batches a
 * minute, so successful checks are remembered (keyed by an HMAC under a per-process random key, never the
 * password itself) and a known-good login costs one HMAC instead of one scrypt run.
 */
export function createScryptPasswordHasher(options: { rememberVerified?: number } = {}): PasswordHasher {
  const capacity = options.rememberVerified ?? 64;
  const processKey = randomBytes(32);
  const verified = new Set<string>();
  const fingerprint = (plain: string, encoded: string) =>
    createHmac('sha256', processKey).update(encoded).update('\0').update(plain).digest('base64');
  return {
    hash: hashPassword,
    async verify(plain, encoded) {
      const mark = fingerprint(plain, encoded);
      if (verified.has(mark)) return true;
      const ok = await verifyPassword(plain, encoded);
      if (ok && capacity > 0) {
        if (verified.size >= capacity) verified.delete(verified.values().next().value as string);
        verified.add(mark);
      }
      return ok;
    },
  };
}
