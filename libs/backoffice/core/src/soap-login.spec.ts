import { LoginFailedError } from './backoffice.errors';
import type { PasswordHasher } from './password-hasher.port';
import { verifySoapLogin } from './soap-login';

// A transparent hasher: the behaviour under test is the lookup and the uniform failure, not scrypt.
const calls: string[] = [];
const hasher: PasswordHasher = {
  hash: async (plain) => `plain$${plain}`,
  verify: async (plain, encoded) => {
    calls.push(encoded);
    return encoded === `plain$${plain}`;
  },
};
const users = [{ username: 'erp', passwordHash: 'plain$secret' }];

describe('verifySoapLogin', () => {
  beforeEach(() => void calls.splice(0));

  it('returns the user whose password matches', async () => {
    await expect(verifySoapLogin(users, 'erp', 'secret', hasher)).resolves.toEqual(users[0]);
  });

  it('fails the same way for a wrong password and for an unknown user, checking a hash either way', async () => {
    const wrong = await verifySoapLogin(users, 'erp', 'nope', hasher).catch((e: unknown) => e);
    const unknown = await verifySoapLogin(users, 'ghost', 'secret', hasher).catch((e: unknown) => e);

    expect(wrong).toBeInstanceOf(LoginFailedError);
    expect(unknown).toBeInstanceOf(LoginFailedError);
    expect((wrong as LoginFailedError).reason).toBe((unknown as LoginFailedError).reason);
    expect((wrong as LoginFailedError).code).toBe('BACKOFFICE.LOGIN_FAILED');
    expect(calls).toHaveLength(2);
  });
});
