import { createHmac } from 'node:crypto';
import { MINTED_TOKEN_LENGTH, tokenMinter } from './session-token';

describe('tokenMinter (decision 134)', () => {
  const key = Buffer.alloc(32, 7);
  const now = () => 1_700_000_000_000;

  it("MACs a token's body with HMAC-SHA256 of the key, as every replica sharing the key does (decision 162)", () => {
    const token = tokenMinter(key, 60_000, now).mint('SE');
    expect(token).toHaveLength(MINTED_TOKEN_LENGTH);
    const bytes = Buffer.from(token, 'base64url');
    const body = bytes.subarray(0, 32);
    expect(bytes.subarray(32)).toEqual(createHmac('sha256', key).update(body).digest().subarray(0, 16));
    // Another minter with the same key (another replica) knows it; one with another key does not.
    expect(tokenMinter(Buffer.from(key), 60_000, now).minted(token)).toEqual({ tag: 'SE' });
    expect(tokenMinter(Buffer.alloc(32, 8), 60_000, now).minted(token)).toBeNull();
  });

  it("draws a random part of its own for every token, across the random pool's refills (decision 201)", () => {
    const minter = tokenMinter(key, 60_000, now);
    // Minted in the same millisecond with the same tag: only the random part tells them apart.
    const tokens = Array.from({ length: 1000 }, () => minter.mint('SE'));
    const randomParts = tokens.map((t) => Buffer.from(t, 'base64url').subarray(0, 24).toString('hex'));
    expect(new Set(randomParts).size).toBe(1000);
    expect(randomParts.every((part) => !/^(00)+$/.test(part))).toBe(true);
    for (const token of tokens.slice(-5)) expect(minter.minted(token)).toEqual({ tag: 'SE' });
    // A tag shorter than its two bytes leaves zeros, not a pool's bytes: the same tag read back.
    expect(minter.minted(minter.mint('D'))).toEqual({ tag: 'D' });
    expect(minter.minted(minter.mint())).toEqual({ tag: '' });
  });
});
