import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '@commerce/account-contracts';
import { COMMON_PASSWORDS } from './common-passwords';

/**
 * NIST SP 800-63B §5.1.1.2 (memorized secrets), as decision 34 documents: at least 8 characters, up
 * to 128 accepted (the floor of "at least 64" with room for passphrases), any printable Unicode and
 * spaces, no composition rules, no hints, and not in a list of commonly used or compromised values.
 * Length counts code points after NFC normalisation, so a password typed on another keyboard hashes the same.
 */
export { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH };

export function normalizePassword(password: string): string {
  return password.normalize('NFC');
}

/** Why the policy refuses a password, or null when it accepts it. */
export function passwordProblem(password: string, context: { email?: string } = {}): string | null {
  const normalized = normalizePassword(password);
  const length = [...normalized].length;
  if (length < PASSWORD_MIN_LENGTH) return 'too short';
  if (length > PASSWORD_MAX_LENGTH) return 'too long';
  const lower = normalized.toLowerCase();
  if (COMMON_PASSWORDS.has(lower)) return 'too common';
  // Context-specific words (§5.1.1.2): the e-mail itself or its local part.
  const email = context.email?.toLowerCase();
  if (email && (lower === email || lower === email.split('@')[0])) return 'the e-mail';
  if (/^(.)\1*$/u.test(normalized)) return 'one repeated character';
  return null;
}
