import { z } from 'zod';
import { parseInput } from '@commerce/shared-errors';
import { PASSWORD_MAX_LENGTH } from './password-policy';

export const Email = z.string().trim().max(254).email();
// A password is checked by the policy (406), not here: only its type and an upper bound on the bytes hashed.
export const Password = z.string().max(PASSWORD_MAX_LENGTH * 4);
export const Field = z.string().trim().max(200);
/** A two-letter country code (or empty), kept upper-case. */
export const Country = z
  .string()
  .trim()
  .regex(/^([A-Za-z]{2})?$/, 'must be a two-letter country code')
  .transform((c) => c.toUpperCase());
export const AddressFields = z.object({
  firstName: Field.optional(),
  lastName: Field.optional(),
  address1: Field.optional(),
  address2: Field.optional(),
  city: Field.optional(),
  state: Field.optional(),
  country: Country.optional(),
  phoneNumber: Field.optional(),
  zipCode: Field.optional(),
});
export const Register = AddressFields.extend({ email: Email, password: Password });

export const parse = parseInput;

export const definedOnly = <T extends object>(o: T): Partial<T> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
