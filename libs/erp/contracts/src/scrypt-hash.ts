import { randomBytes, scrypt, timingSafeEqual, type BinaryLike } from 'node:crypto';

/*
 * The scrypt hash form of SOAP passwords and of buyers' passwords on `backoffice.upsert.v1`
 * (`passwordhash`, decision 30): `scrypt$ln=15,r=8,p=3$<saltB64>$<hashB64>`, or the first form
 * `scrypt$<saltB64>$<hashB64>` (N=2^14, r=8, p=1). In the contracts because the account service, which
 * logs buyers in, must read the form backoffice-soap writes.
 */

const SALT_BYTES = 16;
const KEY_BYTES = 32;

export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

/**
 * New hashes: N=2^15, r=8, p=3, one of OWASP's equivalent scrypt settings (32 MiB a run, ~0.3 s here).
 * 2^17/r=8/p=1 is as strong but takes 128 MiB a run, and a flood of wrong logins runs four at a time
 * on libuv's pool.
 */
export const SCRYPT_PARAMS: ScryptParams = { N: 2 ** 15, r: 8, p: 3 };
// The first form, `scrypt$<salt>$<hash>`, was node's defaults; it still verifies (rotate it away).
const LEGACY_PARAMS: ScryptParams = { N: 16384, r: 8, p: 1 };
const LIMITS = { maxN: 2 ** 20, maxR: 32, maxP: 16 };

function scryptAsync(password: BinaryLike, salt: Buffer, keylen: number, params: ScryptParams): Promise<Buffer> {
  const maxmem = 128 * params.N * params.r * 2 + 1024 * 1024;
  return new Promise((resolve, reject) =>
    scrypt(password, salt, keylen, { ...params, maxmem }, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

const paramsText = (p: ScryptParams): string => `ln=${Math.log2(p.N)},r=${p.r},p=${p.p}`;

function parseParams(text: string): ScryptParams | undefined {
  const m = /^ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})$/.exec(text);
  if (!m) return undefined;
  const params = { N: 2 ** Number(m[1]), r: Number(m[2]), p: Number(m[3]) };
  if (params.N < 2 || params.N > LIMITS.maxN || params.r < 1 || params.r > LIMITS.maxR || params.p < 1 || params.p > LIMITS.maxP)
    return undefined;
  return params;
}

interface Decoded {
  params: ScryptParams;
  salt: Buffer;
  hash: Buffer;
}

/** `scrypt$ln=15,r=8,p=3$<salt>$<hash>`, or the legacy `scrypt$<salt>$<hash>`; undefined when malformed. */
function decode(encoded: string): Decoded | undefined {
  const parts = encoded.split('$');
  if (parts[0] !== 'scrypt') return undefined;
  let params: ScryptParams | undefined;
  let salt: string | undefined;
  let hash: string | undefined;
  if (parts.length === 3) [params, salt, hash] = [LEGACY_PARAMS, parts[1], parts[2]];
  else if (parts.length === 4) [params, salt, hash] = [parseParams(parts[1] ?? ''), parts[2], parts[3]];
  if (!params) return undefined;
  const saltBytes = Buffer.from(salt ?? '', 'base64');
  const hashBytes = Buffer.from(hash ?? '', 'base64');
  if (saltBytes.length === 0 || hashBytes.length < 16 || hashBytes.length > 128) return undefined;
  return { params, salt: saltBytes, hash: hashBytes };
}

/** `scrypt$ln=15,r=8,p=3$<saltB64>$<hashB64>`, the form the store configuration keeps SOAP passwords in. */
export async function hashScryptPassword(plain: string, params: ScryptParams = SCRYPT_PARAMS): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await scryptAsync(plain, salt, KEY_BYTES, params);
  return `scrypt$${paramsText(params)}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/** True when plain matches encoded; false for a wrong password or a malformed hash. */
export async function verifyScryptPassword(plain: string, encoded: string): Promise<boolean> {
  const decoded = decode(encoded);
  if (!decoded) return false;
  const actual = await scryptAsync(plain, decoded.salt, decoded.hash.length, decoded.params);
  return timingSafeEqual(actual, decoded.hash);
}
