import type { AddressDto, CustomerDto } from '@commerce/account-contracts';

/** A customer and its credential, as the account service keeps them. */
export interface Customer {
  id: string;
  address: AddressDto;
  /** PHC string of the password hash (argon2id). */
  passwordHash: string;
}

export const toCustomerDto = (customer: Customer): CustomerDto => ({ id: customer.id, address: { ...customer.address } });

/** E-mails are compared case-insensitively: the stored key is the trimmed, lower-cased address. */
export const emailKey = (email: string): string => email.trim().toLowerCase();
