import { createHmac, createSecretKey, randomBytes, randomFillSync, timingSafeEqual } from 'node:crypto';

const RANDOM_BYTES = 24;
const TIME_BYTES = 6;
const TAG_BYTES = 2;
const MAC_BYTES = 16;
const BODY_BYTES = RANDOM_BYTES + TIME_BYTES + TAG_BYTES;
const TOKEN_BYTES = BODY_BYTES + MAC_BYTES;
/** The base64url length of a minted token (48 bytes). */
export const MINTED_TOKEN_LENGTH = (TOKEN_BYTES * 4) / 3;

/** What a minted token says of itself: the tag it was minted with ('' for none). */
export interface MintedToken {
  tag: string;
}

/** Mints the store's tokens and recognises them without storing them (decision 134). */
export interface TokenMinter {
  /** A new token: 192 random bits, the time it was minted, a tag of at most 2 ASCII characters, and a MAC of them. */
  mint(tag?: string): string;
  /** What the token says when this key minted it less than `ttlMs` ago; null for a tampered, foreign or older token. */
  minted(token: string): MintedToken | null;
}

/** The CSPRNG's bytes for the tokens' random parts, drawn 128 tokens' worth at a time; each byte handed out once. */
const pool = Buffer.allocUnsafeSlow(RANDOM_BYTES * 128);
let drawn = pool.length;

/** Fills `target`'s first RANDOM_BYTES with random bytes: one call into the CSPRNG every 128 tokens, as Node's randomUUID draws (decision 201). */
function randomPart(target: Buffer): void {
  if (drawn + RANDOM_BYTES > pool.length) {
    randomFillSync(pool);
    drawn = 0;
  }
  pool.copy(target, 0, drawn, drawn + RANDOM_BYTES);
  drawn += RANDOM_BYTES;
}

/**
 * Tokens that carry their own proof (decision 134): `base64url(random ‖ minted-at ms ‖ tag ‖ HMAC-SHA256(key,
 * random ‖ minted-at ‖ tag)[0..16))`. A token handed out by a read that stored nothing is still known when it comes
 * back, with its tag (the checkout's: the country the visitor started in), so the session can be stored at its first
 * change under the token the visitor already holds, as it was first shown.
 */
export function tokenMinter(key: Buffer, ttlMs: number, now: () => number): TokenMinter {
  // The key as a KeyObject made once: an HMAC from a Buffer key prepares a key object each time (~35 µs on this
  // machine's Node 24 against ~5 µs: decision 162), and every new visitor's token is minted and then checked once.
  const secret = createSecretKey(key);
  const macOf = (body: Buffer) => createHmac('sha256', secret).update(body).digest().subarray(0, MAC_BYTES);
  return {
    mint(tag = '') {
      if (!/^[\x21-\x7e]{0,2}$/.test(tag))
        throw new Error(`session token: a tag is at most 2 printable ASCII characters (got ${JSON.stringify(tag)})`);
      // The token's bytes in one buffer: the body (its tag's unused bytes zero), then its MAC.
      const token = Buffer.alloc(TOKEN_BYTES);
      const body = token.subarray(0, BODY_BYTES);
      randomPart(body);
      body.writeUIntBE(now(), RANDOM_BYTES, TIME_BYTES);
      body.write(tag, RANDOM_BYTES + TIME_BYTES, 'ascii');
      macOf(body).copy(token, BODY_BYTES);
      return token.toString('base64url');
    },
    minted(token) {
      if (token.length !== MINTED_TOKEN_LENGTH) return null;
      const bytes = Buffer.from(token, 'base64url');
      // Buffer.from skips what is not base64url: a token that does not round-trip is not one of ours.
      if (bytes.length !== TOKEN_BYTES || bytes.toString('base64url') !== token) return null;
      const body = bytes.subarray(0, BODY_BYTES);
      if (!timingSafeEqual(macOf(body), bytes.subarray(BODY_BYTES))) return null;
      const age = now() - body.readUIntBE(RANDOM_BYTES, TIME_BYTES);
      // A minute of clock skew between the replicas that share the key.
      if (age < -60_000 || age >= ttlMs) return null;
      return {
        tag: body
          .subarray(RANDOM_BYTES + TIME_BYTES)
          .toString('ascii')
          .replace(/\0+$/, ''),
      };
    },
  };
}

/** A new key for a store's tokens: 32 random bytes. */
export const newTokenKey = (): Buffer => randomBytes(32);
