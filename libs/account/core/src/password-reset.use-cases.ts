import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ValidationError } from '@commerce/shared-errors';
import type { CustomerDto } from '@commerce/account-contracts';
import { CustomerNotFoundError, PasswordNotValidError, ResetLinkNotValidError, ResetNotConfiguredError } from './account.errors';
import type { AccountDeps } from './account.use-cases';
import type { ResetMailOutcome, ResetMailRequest } from './customer.repository';
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
const nowOf = (deps: AccountDeps) => (deps.now ?? (() => new Date()))();

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
 * `POST password-reset-email/{email}`: the link's path is checked, then the request is written for any
 * well-formed e-mail, known or not (decision 47): the answer's status, body and work are the same for an
 * e-mail no customer has, and once it is given a crash loses nothing. The relay sends the mail afterwards.
 */
export async function requestPasswordReset(deps: AccountDeps, email: string, linkUri?: string): Promise<void> {
  const path = parse(z.object({ linkUri: LinkUri }), { linkUri }).linkUri ?? '';
  const problem = linkUriProblem(path);
  if (problem) throw new ValidationError({ linkUri: problem });
  if (!deps.passwordReset.frontendUrl) throw new ResetNotConfiguredError();
  const address = Email.safeParse(email);
  // A malformed e-mail is nobody's: nothing to write, and nothing that tells a known e-mail from an unknown one.
  if (address.success) await deps.resetMails.enqueue({ email: address.data, linkPath: path, requestedAt: nowOf(deps) });
}

/**
 * Sends the mail of one request (the relay calls it, and retries it when it throws): a request older than a
 * link's lifetime is dropped; else, when a customer has the e-mail, a link with a new 256-bit secret (kept as
 * its SHA-256, valid `ttlMinutes` from now) is mailed. The secret exists only in this call and the mail, so a
 * retry makes a new link; the link of a send that failed is never seen and expires unused.
 */
export async function deliverResetMail(deps: AccountDeps, request: ResetMailRequest): Promise<ResetMailOutcome> {
  const now = nowOf(deps);
  const ttl = deps.passwordReset.ttlMinutes;
  if (request.requestedAt.getTime() + ttl * 60_000 <= now.getTime()) return 'expired';
  const frontendUrl = deps.passwordReset.frontendUrl;
  if (!frontendUrl) throw new ResetNotConfiguredError();
  const customer = await deps.customers.findByEmail(request.email);
  if (!customer) return 'no customer';
  const id = randomUUID();
  const secret = randomBytes(SECRET_BYTES).toString('base64url');
  await deps.resetTokens.save({
    id,
    customerId: customer.id,
    secretHash: sha256(secret),
    expiresAt: new Date(now.getTime() + ttl * 60_000),
  });
  const link = resetLink(frontendUrl, request.linkPath, id, secret);
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
  return 'sent';
}

/**
 * `POST password-reset` `{newPassword, i, id}`: the new password must pass the policy (a refused one leaves
 * the link usable); then, in one transaction, the link is used up, the password set, the customer's session
 * epoch raised (every other login ends) and the customer's other links dropped.
 */
export async function resetPassword(deps: AccountDeps, id: string, secret: string, newPassword: string): Promise<CustomerDto> {
  const now = nowOf(deps);
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
