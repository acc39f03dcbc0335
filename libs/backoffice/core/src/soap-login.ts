import { LoginFailedError } from './backoffice.errors';
import type { PasswordHasher } from './password-hasher.port';

/**
 * A SOAP user from the store configuration; only hashes of passwords are ever kept. During a password
 * rollover a user has two (`passwordHashes`), and either password logs in.
 */
export interface SoapUser {
  username: string;
  passwordHash?: string;
  passwordHashes?: readonly string[];
}

/** Most hashes a user may have at once (the old and the new password of a rollover). */
export const MAX_PASSWORD_HASHES = 2;

export const passwordHashesOf = (user: SoapUser): readonly string[] =>
  user.passwordHashes ?? (user.passwordHash !== undefined ? [user.passwordHash] : []);

/**
 * Checks the `login` element of a request; throws LoginFailedError, identical for every failure. A
 * failure always runs MAX_PASSWORD_HASHES hash checks (the user's hashes, then `dummyHash` for the rest;
 * `dummyHash` alone for an unknown user), so neither the answer nor its time tells which user names exist
 * or how many passwords a user has. `dummyHash` is a well-formed hash with the current parameters that
 * no password matches.
 */
export async function verifySoapLogin(
  users: readonly SoapUser[],
  username: string,
  password: string,
  hasher: PasswordHasher,
  dummyHash: string,
): Promise<SoapUser> {
  const user = username ? users.find((u) => u.username === username) : undefined;
  const hashes = user ? passwordHashesOf(user).slice(0, MAX_PASSWORD_HASHES) : [];
  for (const hash of hashes) if (await hasher.verify(password, hash)) return user as SoapUser;
  for (let i = hashes.length; i < MAX_PASSWORD_HASHES; i++) await hasher.verify(password, dummyHash);
  throw new LoginFailedError();
}
