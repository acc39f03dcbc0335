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
});
