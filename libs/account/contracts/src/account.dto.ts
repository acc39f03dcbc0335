/** The address of a customer: exactly the spec's Address fields (one address per customer). */
export const ADDRESS_FIELDS = [
  'email',
  'firstName',
  'lastName',
  'address1',
  'address2',
  'city',
  'state',
  'country',
  'phoneNumber',
  'zipCode',
] as const;
export type AddressField = (typeof ADDRESS_FIELDS)[number];
export type AddressDto = Record<AddressField, string>;

/** A customer as the account service shows it: its id and the address (`loggedIn` is the address). */
export interface CustomerDto {
  id: string;
  address: AddressDto;
}

/** `POST register`: e-mail and password, the other address fields optional. */
export type RegisterCommand = { email: string; password: string } & Partial<Omit<AddressDto, 'email'>>;

/** Address fields to change; `email` is changed through `changeEmail` only. */
export type AddressChange = Partial<Omit<AddressDto, 'email'>>;

/** Questions the edge asks the account service synchronously (DESIGN §2). HTTP and in-process implementations. */
export interface AccountClient {
  /** 409 `{email: already registered}`, 406 `{password: not valid}`, 400 for malformed fields. */
  register(command: RegisterCommand): Promise<CustomerDto>;
  /** The customer when the password is right; null for a wrong password and an unknown e-mail alike (same hashing work). */
  verifyLogin(email: string, password: string): Promise<CustomerDto | null>;
  /** null when no customer has that id. */
  getCustomer(customerId: string): Promise<CustomerDto | null>;
  updateAddress(customerId: string, change: AddressChange): Promise<CustomerDto>;
  /** 409 `{newEmail: already registered}` when another customer has it. */
  changeEmail(customerId: string, newEmail: string): Promise<CustomerDto>;
  /** 406 `{password: incorrect}` for a wrong current password, 406 `{newPassword: not valid}` for a refused new one. */
  changePassword(customerId: string, password: string, newPassword: string): Promise<CustomerDto>;
}
