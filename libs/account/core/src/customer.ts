import type { AddressDto, CustomerDto } from '@commerce/account-contracts';

/** A customer and its credential, as the account service keeps them. */
export interface Customer {
  id: string;
  address: AddressDto;
  /**
   * PHC string of the password hash (argon2id), or a buyer's scrypt hash from the back office; null for a
   * customer the back office sent without a password (a password reset gives it one).
   */
  passwordHash: string | null;
  /** Raised by a password reset: sessions logged in before it are logged out (CustomerDto.sessionEpoch). */
  sessionEpoch: number;
  /** `customer:<id>` or `buyer:<id>` when the back office sent it. */
  externalKey?: string | null;
  /** A buyer's market and pricelist (ERP ids). */
  market?: string | null;
  pricelist?: string | null;
}

export const toCustomerDto = (customer: Customer): CustomerDto => ({
  id: customer.id,
  address: { ...customer.address },
  sessionEpoch: customer.sessionEpoch,
  ...(customer.market ? { market: customer.market } : {}),
  ...(customer.pricelist ? { pricelist: customer.pricelist } : {}),
});

/** E-mails are compared case-insensitively: the stored key is the trimmed, lower-cased address. */
export const emailKey = (email: string): string => email.trim().toLowerCase();
