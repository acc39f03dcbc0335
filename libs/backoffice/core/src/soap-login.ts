import { LoginFailedError } from './backoffice.errors';
import type { PasswordHasher } from './password-hasher.port';

/** A SOAP user from the store configuration; only the hash of the password is ever kept. */
export interface SoapUser {
  username: string;
  passwordHash: string;
}

// A well-formed hash no password matches: an unknown user costs the same scrypt run as a known one,
// so response times do not tell which user names exist.
const NO_USER_HASH = `scrypt$${Buffer.alloc(16).toString('base64')}$${Buffer.alloc(64).toString('base64')}`;

/** Checks the `login` element of a request; throws LoginFailedError, identical for every failure. */
export async function verifySoapLogin(
  users: readonly SoapUser[],
  username: string,
  password: string,
  hasher: PasswordHasher,
): Promise<SoapUser> {
  const user = username ? users.find((u) => u.username === username) : undefined;
  const ok = await hasher.verify(password, user?.passwordHash ?? NO_USER_HASH);
  if (!user || !ok) throw new LoginFailedError();
  return user;
}
