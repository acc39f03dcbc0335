import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { AccountClient, AddressChange, CustomerDto, RegisterCommand } from '@commerce/account-contracts';
import { emptyAddress, CustomerChanged, CustomerRegistered, type CustomerEventPayload } from '@commerce/account-contracts';
import { CustomerNotFoundError, EmailTakenError, PasswordIncorrectError, PasswordNotValidError } from './account.errors';
import { AddressFields, Email, Password, Register, definedOnly, parse } from './account.validation';
import { toCustomerDto, type Customer } from './customer';
import type {
  CustomerRepository,
  Mailer,
  PasswordHasher,
  ResetMailQueue,
  ResetTokenRepository,
  SubscriptionRepository,
} from './customer.repository';
import { normalizePassword, passwordProblem } from './password-policy';
import { requestPasswordReset, resetPassword, type PasswordResetSettings } from './password-reset.use-cases';
import { subscribeBackInStock, subscribeNewsletter } from './subscriptions.use-cases';

export interface AccountDeps {
  customers: CustomerRepository;
  hasher: PasswordHasher;
  /**
   * A hash of a random password made with the same parameters at start-up: a login for an unknown
   * e-mail verifies against it, so it costs the same hashing work as one for a known e-mail.
   */
  dummyHash: string;
  resetTokens: ResetTokenRepository;
  subscriptions: SubscriptionRepository;
  mailer: Mailer;
  passwordReset: PasswordResetSettings;
  /**
   * Reset-mail requests: written before the answer for any well-formed e-mail (the answer does the same work
   * whether the e-mail is known or not) and sent afterwards by the adapter's relay, retried until sent.
   */
  resetMails: ResetMailQueue;
  now?: () => Date;
}

/** What `account.customer.v1` carries: the ERP's id of a customer it sent (`customer:<id>`), never a password. */
const eventPayload = (customer: Customer): CustomerEventPayload => ({
  customerId: customer.id,
  ...(customer.externalKey?.startsWith('customer:') ? { externalId: customer.externalKey.slice('customer:'.length) } : {}),
  address: { ...customer.address },
});
const changedEvent = (customer: Customer) => [CustomerChanged.create(customer.id, eventPayload(customer))];

/** Registers a customer: validate, check the password policy, hash, save (the unique e-mail decides a race). */
export async function register(deps: AccountDeps, command: RegisterCommand): Promise<CustomerDto> {
  const { password, email, ...address } = parse(Register, command);
  if (passwordProblem(password, { email })) throw new PasswordNotValidError();
  if (await deps.customers.findByEmail(email)) throw new EmailTakenError();
  const customer: Customer = {
    id: randomUUID(),
    address: { ...emptyAddress(), ...definedOnly(address), email },
    passwordHash: await deps.hasher.hash(normalizePassword(password)),
    sessionEpoch: 0,
  };
  if (!(await deps.customers.create(customer, [CustomerRegistered.create(customer.id, eventPayload(customer))])))
    throw new EmailTakenError();
  return toCustomerDto(customer);
}

/** The customer when the password is right; null otherwise, after the same hashing work whether the e-mail is known or not. */
export async function verifyLogin(deps: AccountDeps, email: string, password: string): Promise<CustomerDto | null> {
  const emailOk = Email.safeParse(email);
  const passwordOk = Password.safeParse(password);
  const customer = emailOk.success ? await deps.customers.findByEmail(emailOk.data) : null;
  const candidate = passwordOk.success ? normalizePassword(passwordOk.data) : '';
  const matches = await deps.hasher.verify(customer?.passwordHash ?? deps.dummyHash, candidate);
  // A customer without a password (sent by the back office) costs the same work and never logs in by it.
  if (!customer?.passwordHash || !passwordOk.success || !matches) return null;
  // A buyer's scrypt hash from the back office (before decision 54), or argon2id of another cost, is replaced
  // at the login, so later ones cost the same as everyone's.
  if (deps.hasher.needsRehash(customer.passwordHash))
    await deps.customers.updatePasswordHash(customer.id, await deps.hasher.hash(candidate));
  return toCustomerDto(customer);
}

async function existing(deps: AccountDeps, id: string): Promise<Customer> {
  const customer = await deps.customers.findById(id);
  if (!customer) throw new CustomerNotFoundError();
  return customer;
}

export async function updateAddress(deps: AccountDeps, id: string, change: AddressChange): Promise<CustomerDto> {
  const fields = definedOnly(parse(AddressFields.strict(), change));
  const customer = await existing(deps, id);
  const address = { ...customer.address, ...fields };
  if ((await deps.customers.updateAddress(id, address, changedEvent)) === null) throw new CustomerNotFoundError();
  return toCustomerDto({ ...customer, address });
}

export async function changeEmail(deps: AccountDeps, id: string, newEmail: string): Promise<CustomerDto> {
  const { newEmail: email } = parse(z.object({ newEmail: Email }), { newEmail });
  const customer = await existing(deps, id);
  const other = await deps.customers.findByEmail(email);
  if (other && other.id !== id) throw new EmailTakenError('newEmail');
  const address = { ...customer.address, email };
  const written = await deps.customers.updateAddress(id, address, changedEvent);
  if (written === null) throw new CustomerNotFoundError();
  if (!written) throw new EmailTakenError('newEmail');
  return toCustomerDto({ ...customer, address });
}

export async function changePassword(deps: AccountDeps, id: string, password: string, newPassword: string): Promise<CustomerDto> {
  const parsed = parse(z.object({ password: Password, newPassword: Password }), { password, newPassword });
  const customer = await existing(deps, id);
  const current = await deps.hasher.verify(customer.passwordHash ?? deps.dummyHash, normalizePassword(parsed.password));
  if (!current || !customer.passwordHash) throw new PasswordIncorrectError();
  if (passwordProblem(parsed.newPassword, { email: customer.address.email })) throw new PasswordNotValidError('newPassword');
  await deps.customers.updatePasswordHash(id, await deps.hasher.hash(normalizePassword(parsed.newPassword)));
  return toCustomerDto(customer);
}

/** The use cases as a typed client: the in-process implementation of AccountClient. */
export function accountUseCases(deps: AccountDeps): AccountClient {
  return {
    register: (command) => register(deps, command),
    verifyLogin: (email, password) => verifyLogin(deps, email, password),
    getCustomer: async (id) => {
      const customer = await deps.customers.findById(id);
      return customer ? toCustomerDto(customer) : null;
    },
    updateAddress: (id, change) => updateAddress(deps, id, change),
    changeEmail: (id, newEmail) => changeEmail(deps, id, newEmail),
    changePassword: (id, password, newPassword) => changePassword(deps, id, password, newPassword),
    requestPasswordReset: (email, linkUri) => requestPasswordReset(deps, email, linkUri),
    resetPassword: (id, secret, newPassword) => resetPassword(deps, id, secret, newPassword),
    subscribeNewsletter: (subscription) => subscribeNewsletter(deps, subscription),
    subscribeBackInStock: (subscription) => subscribeBackInStock(deps, subscription),
  };
}
