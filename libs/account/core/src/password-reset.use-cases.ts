import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ValidationError } from '@commerce/shared-errors';
import type { CustomerDto } from '@commerce/account-contracts';
import { CustomerNotFoundError, PasswordNotValidError, ResetLinkNotValidError, ResetNotConfiguredError } from './account.errors';
import type { AccountDeps } from './account.use-cases';
import { Email, Password, parse } from './account.validation';
import { toCustomerDto } from './customer';
import { normalizePassword, passwordProblem } from './password-policy';

export interface PasswordResetSettings {
  /** The storefront's base URL from the store configuration; links are this plus the client's `linkUri`. */
  frontendUrl?: string | undefined;
  /** How long a link works (PASSWORD_RESET_TTL_MINUTES, 60 by default). */
  ttlMinutes: number;
}

const SECRET_BYTES = 32;
const LINK_URI_MAX = 512;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * `linkUri` is a path on the configured frontend, nothing else: no scheme, no host (`//`), no `..`
 * segment, no backslash, query or fragment (the service adds the query), only URL path characters.
 */
export function linkUriProblem(linkUri: string): string | null {
  if (linkUri.length > LINK_URI_MAX) return `must be at most ${LINK_URI_MAX} characters`;
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(linkUri)) return 'must be a path, without a scheme';
  if (linkUri.includes('//')) return 'must be a path, without a host';
  if (linkUri.split('/').some((segment) => segment === '..' || /^(\.|%2e){2}$/i.test(segment))) return 'must not contain ..';
  if (!/^[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*$/.test(linkUri)) return 'must be a path (no query, fragment or backslash)';
  return null;
}

/** The link of a reset mail: the frontend URL, the path, and the query `id` and `i`. */
export function resetLink(frontendUrl: string, linkUri: string, id: string, secret: string): string {
  const base = frontendUrl.replace(/\/+$/, '');
  const path = linkUri.replace(/^\/+/, '');
  return `${base}/${path}?${new URLSearchParams({ id, i: secret }).toString()}`;
}

const LinkUri = z.string().optional();

/**
 * `POST password-reset-email/{email}`: the link's path is checked and the answer given before the e-mail
 * is even looked up, so its status, body and timing are the same for an e-mail no customer has. When one
 * has it, a link with a new 256-bit secret (kept as its SHA-256, valid `ttlMinutes`) is mailed afterwards.
 */
export async function requestPasswordReset(deps: AccountDeps, email: string, linkUri?: string): Promise<void> {
  const path = parse(z.object({ linkUri: LinkUri }), { linkUri }).linkUri ?? '';
  const problem = linkUriProblem(path);
  if (problem) throw new ValidationError({ linkUri: problem });
  const frontendUrl = deps.passwordReset.frontendUrl;
  if (!frontendUrl) throw new ResetNotConfiguredError();
  deps.background(() => mailResetLink(deps, email, frontendUrl, path));
}

async function mailResetLink(deps: AccountDeps, email: string, frontendUrl: string, path: string): Promise<void> {
  const address = Email.safeParse(email);
  const customer = address.success ? await deps.customers.findByEmail(address.data) : null;
  if (!customer) return;
  const id = randomUUID();
  const secret = randomBytes(SECRET_BYTES).toString('base64url');
  const now = (deps.now ?? (() => new Date()))();
  const ttl = deps.passwordReset.ttlMinutes;
  await deps.resetTokens.save({
    id,
    customerId: customer.id,
    secretHash: sha256(secret),
    expiresAt: new Date(now.getTime() + ttl * 60_000),
  });
  const link = resetLink(frontendUrl, path, id, secret);
  await deps.mailer.send({
    to: customer.address.email,
    subject: 'Reset your password',
    text: [
      `Hello${customer.address.firstName ? ` ${customer.address.firstName}` : ''},`,
      '',
      'Someone (we hope you) asked to reset the password of your account. To choose a new one, open this link:',
      '',
      link,
      '',
      `The link works once, for ${ttl} minutes. If you did not ask for it, ignore this mail: your password stays as it is.`,
    ].join('\n'),
  });
}

/**
 * `POST password-reset` `{newPassword, i, id}`: the new password must pass the policy (a refused one leaves
 * the link usable); then, in one transaction, the link is used up, the password set, the customer's session
 * epoch raised (every other login ends) and the customer's other links dropped.
 */
export async function resetPassword(deps: AccountDeps, id: string, secret: string, newPassword: string): Promise<CustomerDto> {
  const now = (deps.now ?? (() => new Date()))();
  const Link = z.object({ id: z.string().uuid(), i: z.string().min(1).max(256) });
  const link = Link.safeParse({ id, i: secret });
  const password = parse(z.object({ newPassword: Password }), { newPassword }).newPassword;
  if (!link.success) throw new ResetLinkNotValidError();
  const secretHash = sha256(link.data.i);
  const token = await deps.resetTokens.findValid(link.data.id, secretHash, now);
  if (!token) throw new ResetLinkNotValidError();
  const customer = await deps.customers.findById(token.customerId);
  if (!customer) throw new CustomerNotFoundError();
  if (passwordProblem(password, { email: customer.address.email })) throw new PasswordNotValidError('newPassword');
  const hash = await deps.hasher.hash(normalizePassword(password));
  const customerId = await deps.resetTokens.complete(link.data.id, secretHash, now, hash);
  if (!customerId) throw new ResetLinkNotValidError();
  const updated = await deps.customers.findById(customerId);
  if (!updated) throw new CustomerNotFoundError();
  return toCustomerDto(updated);
}
