import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';

/**
 * The HMAC-SHA256 signatures of a hosted payment page as Adyen's classic HPP computes them: the keys
 * sorted, then their values, each with `\` and `:` escaped, all joined by `:`; the key is hex; the
 * signature base64. The built-in test provider signs its return parameters this way so that a storefront
 * meets what a real PSP sends.
 */
const escape = (s: string) => s.replace(/\\/g, '\\\\').replace(/:/g, '\\:');

export function signingString(params: Record<string, string>): string {
  const keys = Object.keys(params).sort();
  return [...keys.map(escape), ...keys.map((k) => escape(params[k]!))].join(':');
}

/** The keys as `KeyObject`s, each made once: `createHmac` prepares one from a Buffer at every call (decision 162). */
const keys = new Map<string, KeyObject | Buffer>();
function keyOf(hexKey: string): KeyObject | Buffer {
  let key = keys.get(hexKey);
  if (!key) {
    const bytes = Buffer.from(hexKey, 'hex');
    // An empty key (a misconfiguration the config refuses) makes no KeyObject: the Buffer, as before.
    key = bytes.length > 0 ? createSecretKey(bytes) : bytes;
    // A process signs with its test providers' one key; other keys are tests'.
    if (keys.size >= 16) keys.clear();
    keys.set(hexKey, key);
  }
  return key;
}

export const hmacBase64 = (hexKey: string, text: string): string =>
  createHmac('sha256', keyOf(hexKey)).update(text, 'utf8').digest('base64');

export const signParams = (hexKey: string, params: Record<string, string>): string => hmacBase64(hexKey, signingString(params));

/** Compares two signatures in constant time (a mismatch of length is a mismatch). */
export function sameSignature(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
