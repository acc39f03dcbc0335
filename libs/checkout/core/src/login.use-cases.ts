import { z } from 'zod';
import { ValidationError, fieldsFromIssues } from '@commerce/shared-errors';
import type { RegisterCommand } from '@commerce/account-contracts';
import { AccessDeniedError, LoginIncorrectError } from './checkout.errors';
import { renewSession, type CheckoutDeps, type SessionHandle } from './checkout.use-cases';
import { TooManyAttemptsError } from './login-guard';
import { currentSelection, envelope, selectionInSession } from './selection.use-cases';

const parse = <T>(schema: z.ZodType<T>, body: unknown): T => {
  const result = schema.safeParse(body ?? {});
  if (!result.success) throw new ValidationError(fieldsFromIssues(result.error.issues));
  return result.data;
};

// The edge checks the shape; the account service checks the values (e-mail format, lengths, the password policy).
const RegisterBody = z.looseObject({ email: z.string(), password: z.string() });
const LoginBody = z.object({ password: z.string() });
const EmailBody = z.object({ newEmail: z.string() });
const PasswordBody = z.object({ password: z.string(), newPassword: z.string() });
const AddressBody = z.record(z.string(), z.string());

/** The customer logged in on the token; else 403 `{accessRight: denied}`. */
function customerOf(handle: SessionHandle): string {
  if (!handle.session.customerId) throw new AccessDeniedError();
  return handle.session.customerId;
}

async function sessionEnvelope(deps: CheckoutDeps, handle: SessionHandle) {
  return envelope(deps, handle, await currentSelection(deps, handle));
}

/**
 * Attaches the customer to a new token (the token the visitor had before no longer carries anything) and
 * the saved selection to the session: the anonymous selection's lines merged into it by the cart, then
 * shown in this session's country and market.
 */
async function logIn(deps: CheckoutDeps, handle: SessionHandle, customerId: string) {
  await renewSession(deps, handle);
  const saved = await deps.cart.claimSelection(customerId, handle.session.selectionId ?? null);
  const { selectionId: _anonymous, ...rest } = handle.session;
  handle.session = { ...rest, customerId, ...(saved ? { selectionId: saved.id } : {}) };
  await deps.sessions.set(handle.token, handle.session);
  return saved ? selectionInSession(deps, handle, saved) : sessionEnvelope(deps, handle);
}

async function assertNotBlocked(deps: CheckoutDeps, field: string, account: string | null, address: string) {
  const seconds = await deps.loginGuard.blockedFor(account, address);
  if (seconds > 0) throw new TooManyAttemptsError(field, seconds);
}

/** `POST register`: a new customer, logged in on a new token (the selection goes with it). Every attempt counts against the address. */
export async function register(deps: CheckoutDeps, handle: SessionHandle, body: unknown, clientAddress: string) {
  const command = parse(RegisterBody, body) as RegisterCommand;
  await assertNotBlocked(deps, 'email', null, clientAddress);
  await deps.loginGuard.failed(null, clientAddress);
  const customer = await deps.account.register(command);
  return logIn(deps, handle, customer.id);
}

/**
 * `POST login/{email}`: one answer, 406 `{password: incorrect}`, for an unknown e-mail and a wrong password;
 * over the limits of the account or the address 429 before any hashing.
 */
export async function login(deps: CheckoutDeps, handle: SessionHandle, email: string, body: unknown, clientAddress: string) {
  const { password } = parse(LoginBody, body);
  const account = email.trim().toLowerCase();
  await assertNotBlocked(deps, 'password', account, clientAddress);
  const customer = await deps.account.verifyLogin(email, password);
  if (!customer) {
    await deps.loginGuard.failed(account, clientAddress);
    throw new LoginIncorrectError();
  }
  return logIn(deps, handle, customer.id);
}

/** `POST logout`: a new anonymous token in the same country and language, with an empty selection. */
export async function logout(deps: CheckoutDeps, handle: SessionHandle) {
  await renewSession(deps, handle, { reset: true });
  return sessionEnvelope(deps, handle);
}

/** `PUT address` and `PUT customer/update`: the customer's address fields (e-mail through `PUT email`). */
export async function updateAddress(deps: CheckoutDeps, handle: SessionHandle, body: unknown) {
  const customerId = customerOf(handle);
  await deps.account.updateAddress(customerId, parse(AddressBody, body));
  return sessionEnvelope(deps, handle);
}

/** `PUT email` `{newEmail}`. */
export async function changeEmail(deps: CheckoutDeps, handle: SessionHandle, body: unknown) {
  const customerId = customerOf(handle);
  await deps.account.changeEmail(customerId, parse(EmailBody, body).newEmail);
  return sessionEnvelope(deps, handle);
}

/** `PUT password` `{password, newPassword}`. */
export async function changePassword(deps: CheckoutDeps, handle: SessionHandle, body: unknown) {
  const customerId = customerOf(handle);
  const { password, newPassword } = parse(PasswordBody, body);
  await deps.account.changePassword(customerId, password, newPassword);
  return sessionEnvelope(deps, handle);
}
