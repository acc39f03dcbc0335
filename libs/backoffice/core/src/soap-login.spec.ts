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
const DUMMY = 'plain$\u0000nobody';
const users = [
  { username: 'erp', passwordHash: 'plain$secret' },
  { username: 'rolling', passwordHashes: ['plain$old', 'plain$new'] },
];

describe('verifySoapLogin', () => {
  beforeEach(() => void calls.splice(0));

  it('returns the user whose password matches', async () => {
    await expect(verifySoapLogin(users, 'erp', 'secret', hasher, DUMMY)).resolves.toEqual(users[0]);
  });

  it('during a rollover, accepts either of the user’s two passwords', async () => {
    await expect(verifySoapLogin(users, 'rolling', 'old', hasher, DUMMY)).resolves.toEqual(users[1]);
    await expect(verifySoapLogin(users, 'rolling', 'new', hasher, DUMMY)).resolves.toEqual(users[1]);
    await expect(verifySoapLogin(users, 'rolling', 'secret', hasher, DUMMY)).rejects.toBeInstanceOf(LoginFailedError);
  });

  it('fails the same way, with the same number of hash checks, for a wrong password, an unknown user and a rolling user', async () => {
    const outcomes = [];
    const counts = [];
    for (const [user, password] of [
      ['erp', 'nope'],
      ['ghost', 'secret'],
      ['rolling', 'nope'],
      ['', ''],
    ] as const) {
      calls.splice(0);
      outcomes.push(await verifySoapLogin(users, user, password, hasher, DUMMY).catch((e: unknown) => e));
      counts.push(calls.length);
    }

    for (const error of outcomes) {
      expect(error).toBeInstanceOf(LoginFailedError);
      expect((error as LoginFailedError).reason).toBe('login failed');
      expect((error as LoginFailedError).code).toBe('BACKOFFICE.LOGIN_FAILED');
    }
    expect(counts).toEqual([2, 2, 2, 2]);
  });
});
