import { parseInput } from '@commerce/shared-errors';

// The field schemas are the account's contract: the checkout edge checks the same ones (decision 126).
export { AddressFields, Country, Email, Field, Password, Register } from '@commerce/account-contracts';

export const parse = parseInput;

export const definedOnly = <T extends object>(o: T): Partial<T> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
