import type { AddressDto } from '@commerce/account-contracts';
import type { EventEnvelope } from '@commerce/shared-events';
import type { Customer } from './customer';

/** Port: where customers and credentials live (knex on Postgres or PGlite). */
export interface CustomerRepository {
  /** false when the e-mail is taken (unique index, so two concurrent registrations cannot both win). */
  create(customer: Customer, events: EventEnvelope[]): Promise<boolean>;
  findById(id: string): Promise<Customer | null>;
  findByEmail(email: string): Promise<Customer | null>;
  /** Writes the address (e-mail included); false when the new e-mail is taken by another customer. null: no such customer. */
  updateAddress(id: string, address: AddressDto, events: (customer: Customer) => EventEnvelope[]): Promise<boolean | null>;
  updatePasswordHash(id: string, passwordHash: string): Promise<void>;
}

/** Port: customers, buyers, accounts, sales reps and terms from the back office, inside one consumer transaction. */
export interface BackofficeRepository {
  findByExternalKey(externalKey: string): Promise<Customer | null>;
  /** A customer with that e-mail that no ERP record is linked to yet (one who registered in the shop). */
  findUnlinkedByEmail(email: string): Promise<Customer | null>;
  saveBackofficeCustomer(c: {
    id: string;
    externalKey: string;
    address: AddressDto;
    /** Kept when the new e-mail belongs to another customer. */
    previousEmail: string;
    status?: string | undefined;
    accountId?: string | undefined;
    market?: string | undefined;
    pricelist?: string | undefined;
    passwordHash?: string | undefined;
  }): Promise<void>;
  /** Merges `data` into what is kept of an account, sales rep or terms (fields left out keep their value). */
  saveEntity(entity: 'account' | 'salesrep' | 'paymentterms' | 'shippingterms', id: string, data: Record<string, unknown>): Promise<void>;
}

/** A password-reset link as kept: the secret only as its SHA-256 (a 256-bit random secret needs no slow hash). */
export interface ResetToken {
  id: string;
  customerId: string;
  secretHash: string;
  expiresAt: Date;
}

/** Port: password-reset links. */
export interface ResetTokenRepository {
  save(token: ResetToken): Promise<void>;
  /** The link when it exists, has that secret and has not expired at `now`; else null. */
  findValid(id: string, secretHash: string, now: Date): Promise<ResetToken | null>;
  /**
   * In one transaction: uses the link up (it must still be valid at `now`, so of two concurrent resets one
   * wins), sets the password, raises the customer's session epoch and drops the customer's other links.
   * The customer's id, or null when the link was no longer valid.
   */
  complete(id: string, secretHash: string, now: Date, passwordHash: string): Promise<string | null>;
}

/** A password-reset mail asked for and not sent yet: written before the answer, sent by a relay (decision 47). */
export interface ResetMailRequest {
  id: string;
  /** As the visitor typed it (well-formed); whether a customer has it is looked up when the mail is sent. */
  email: string;
  /** The checked `linkUri` ('' for the frontend URL itself). */
  linkPath: string;
  requestedAt: Date;
  /** Sends tried so far, this one included. */
  attempts: number;
}

/** What became of a reset-mail request: mailed, nobody has the e-mail, or too old to be worth a mail. */
export type ResetMailOutcome = 'sent' | 'no customer' | 'expired';

/** Port: the durable queue of reset mails (a table in the account schema, and its relay). */
export interface ResetMailQueue {
  /** Committed when it resolves: a crash after the answer loses nothing. */
  enqueue(request: { email: string; linkPath: string; requestedAt: Date }): Promise<void>;
}

/** Port: newsletter consents and back-in-stock requests. */
export interface SubscriptionRepository {
  /** Idempotent by e-mail; `consentedAt` is kept from the first subscription, country and language updated when given. */
  subscribeNewsletter(s: { email: string; country?: string; language?: string; consentedAt: Date }): Promise<void>;
  /** Idempotent while the request is open (not yet notified). */
  subscribeBackInStock(s: { email: string; item: string; product: string; at: Date }): Promise<void>;
  /** Items of a product someone waits for. */
  waitedItems(product: string): Promise<string[]>;
  /**
   * Marks the open requests for an item notified and answers their e-mails: whoever marks a request sends
   * its mail, so each goes out once however often the stock event is delivered.
   */
  claimBackInStock(item: string, at: Date): Promise<{ id: string; email: string }[]>;
  /** Undoes a claim whose mail could not be sent, so the next stock event tries again. */
  releaseBackInStock(ids: string[]): Promise<void>;
}

/** Port: the password hash (argon2id in the adapters). */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** Never throws for a malformed hash: false. */
  verify(passwordHash: string, password: string): Promise<boolean>;
  /** Not made with this hasher's algorithm and cost: replaced at the next successful login. */
  needsRehash(passwordHash: string): boolean;
}

/** One e-mail, plain text (a link is written out in full). */
export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** Port: e-mail out (SMTP via nodemailer, or files in an outbox directory). */
export interface Mailer {
  send(mail: Mail): Promise<void>;
}
