import { parseInput } from '@commerce/shared-errors';
import type { CustomerDto, RegisterCommand } from '@commerce/account-contracts';
import { AddressBody, EmailBody, LoginBody, PasswordBody, RegisterBody, ResetBody, ResetEmailBody } from '@commerce/checkout-contracts';
import { AccessDeniedError, LoginIncorrectError } from './checkout.errors';
import { admitSession, anonymousOf, renewSession, storeSession, type CheckoutDeps, type SessionHandle } from './checkout.use-cases';
import { TooManyAttemptsError } from './login-guard';
import type { BuyerPricing } from './session';
import { currentSelection, envelope, selectionInSession } from './selection.use-cases';

const parse = parseInput;

/** The customer logged in on the token; else 403 `{accessRight: denied}`. */
function customerOf(handle: SessionHandle): string {
  if (!handle.session.customerId) throw new AccessDeniedError();
  return handle.session.customerId;
}

async function sessionEnvelope(deps: CheckoutDeps, handle: SessionHandle) {
  return envelope(deps, handle, await currentSelection(deps, handle));
}

/**
 * Attaches the customer to the token (spec: Login state of a token; with `SESSION_ROTATE_ON_LOGIN` to a new
 * token, the one the visitor had before then carrying nothing) and the saved selection to the session: the
 * anonymous selection's lines merged into it by the cart, then shown in this session's country and market.
 */
async function logIn(deps: CheckoutDeps, handle: SessionHandle, customer: CustomerDto) {
  await admitSession(deps, handle);
  const buyer = await buyerPricingOf(deps, customer);
  if (deps.rotateTokenOnLogin) await renewSession(deps, handle);
  const saved = await deps.cart.claimSelection(customer.id, handle.session.selectionId ?? null);
  const { selectionId: _anonymous, buyer: _previous, ...rest } = handle.session;
  handle.session = {
    ...rest,
    customerId: customer.id,
    sessionEpoch: customer.sessionEpoch,
    ...(buyer ? { buyer } : {}),
    ...(saved ? { selectionId: saved.id } : {}),
  };
  handle.customer = customer;
  await storeSession(deps, handle);
  return saved ? selectionInSession(deps, handle, saved) : sessionEnvelope(deps, handle);
}

/**
 * A B2B buyer's market and pricelist (decision 46), read once at login: the pricelist with its currency from
 * the catalog. A pricelist the catalog does not have yet, or in a currency the store does not configure, is
 * left out (the buyer sees the country's prices until a later login); the market applies on its own.
 */
export async function buyerPricingOf(deps: CheckoutDeps, customer: CustomerDto): Promise<BuyerPricing | undefined> {
  const pricelist = customer.pricelist ? await deps.catalog.getPricelist(customer.pricelist) : null;
  const pricing: BuyerPricing = {
    ...(customer.market ? { market: customer.market } : {}),
    ...(pricelist && deps.view.hasCurrency(pricelist.currency) ? { pricelist: pricelist.pricelist, currency: pricelist.currency } : {}),
  };
  return Object.keys(pricing).length > 0 ? pricing : undefined;
}

async function assertNotBlocked(deps: CheckoutDeps, field: string, account: string | null, address: string) {
  const seconds = await deps.loginGuard.blockedFor(account, address);
  if (seconds > 0) throw new TooManyAttemptsError(field, seconds);
}

/** `POST register`: a new customer, logged in on the token (the selection goes with it). Every attempt counts against the address. */
export async function register(deps: CheckoutDeps, handle: SessionHandle, body: unknown, clientAddress: string) {
  const command = parse(RegisterBody, body) as RegisterCommand;
  await assertNotBlocked(deps, 'email', null, clientAddress);
  await deps.loginGuard.failed(null, clientAddress);
  const customer = await deps.account.register(command);
  return logIn(deps, handle, customer);
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
  return logIn(deps, handle, customer);
}

/**
 * `POST logout`: the token anonymous again in the same country and language, with an empty selection (the saved
 * selection stays with the customer); with `SESSION_ROTATE_ON_LOGIN`, a new token.
 */
export async function logout(deps: CheckoutDeps, handle: SessionHandle) {
  if (deps.rotateTokenOnLogin) await renewSession(deps, handle, { reset: true });
  else {
    handle.session = anonymousOf(deps, handle.session);
    // A session never stored holds nothing to take off.
    if (handle.stored) await storeSession(deps, handle);
  }
  delete handle.customer;
  return sessionEnvelope(deps, handle);
}

/** `PUT address` and `PUT customer/update`: the customer's address fields (e-mail through `PUT email`). */
export async function updateAddress(deps: CheckoutDeps, handle: SessionHandle, body: unknown) {
  const customerId = customerOf(handle);
  handle.customer = await deps.account.updateAddress(customerId, parse(AddressBody, body));
  return sessionEnvelope(deps, handle);
}

/** `PUT email` `{newEmail}`. */
export async function changeEmail(deps: CheckoutDeps, handle: SessionHandle, body: unknown) {
  const customerId = customerOf(handle);
  handle.customer = await deps.account.changeEmail(customerId, parse(EmailBody, body).newEmail);
  return sessionEnvelope(deps, handle);
}

/** `PUT password` `{password, newPassword}`. */
export async function changePassword(deps: CheckoutDeps, handle: SessionHandle, body: unknown) {
  const customerId = customerOf(handle);
  const { password, newPassword } = parse(PasswordBody, body);
  handle.customer = await deps.account.changePassword(customerId, password, newPassword);
  return sessionEnvelope(deps, handle);
}

/**
 * `POST password-reset-email/{email}` with optional `{linkUri}`: the same answer (the session's envelope)
 * whether or not a customer has the e-mail; the account service looks it up after answering. Every request
 * counts against the client address, as a registration does.
 */
export async function passwordResetEmail(deps: CheckoutDeps, handle: SessionHandle, email: string, body: unknown, clientAddress: string) {
  const { linkUri } = parse(ResetEmailBody, body);
  await assertNotBlocked(deps, 'email', null, clientAddress);
  await deps.loginGuard.failed(null, clientAddress);
  await deps.account.requestPasswordReset(email, linkUri);
  return sessionEnvelope(deps, handle);
}

/**
 * `POST password-reset` `{newPassword, i, id}`: the password changed, every other login of the customer
 * ended (the account service raised its session epoch), and this visitor logged in on the token. A link
 * that does not work counts against the client address.
 */
export async function passwordReset(deps: CheckoutDeps, handle: SessionHandle, body: unknown, clientAddress: string) {
  const { newPassword, i, id } = parse(ResetBody, body);
  await assertNotBlocked(deps, 'i', null, clientAddress);
  const customer = await deps.account.resetPassword(id, i, newPassword).catch(async (e: unknown) => {
    if ((e as { code?: string }).code === 'ACCOUNT.RESET_LINK_NOT_VALID') await deps.loginGuard.failed(null, clientAddress);
    throw e;
  });
  return logIn(deps, handle, customer);
}
