/** Hashes SOAP passwords as `scrypt$<saltB64>$<hashB64>`; the adapter uses node:crypto. */
export interface PasswordHasher {
  hash(plain: string): Promise<string>;
  /** False (never a throw) for a wrong password or a malformed hash. Compares in constant time. */
  verify(plain: string, encoded: string): Promise<boolean>;
}
