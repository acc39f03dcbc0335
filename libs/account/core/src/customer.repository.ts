import type { AddressDto } from '@commerce/account-contracts';
import type { Customer } from './customer';

/** Port: where customers and credentials live (knex on Postgres or PGlite). */
export interface CustomerRepository {
  /** false when the e-mail is taken (unique index, so two concurrent registrations cannot both win). */
  create(customer: Customer): Promise<boolean>;
  findById(id: string): Promise<Customer | null>;
  findByEmail(email: string): Promise<Customer | null>;
  /** Writes the address (e-mail included); false when the new e-mail is taken by another customer. null: no such customer. */
  updateAddress(id: string, address: AddressDto): Promise<boolean | null>;
  updatePasswordHash(id: string, passwordHash: string): Promise<void>;
}

/** Port: the password hash (argon2id in the adapters). */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** Never throws for a malformed hash: false. */
  verify(passwordHash: string, password: string): Promise<boolean>;
}
