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
  /**
   * Raised when every login of the customer must end (a password reset): the edge keeps the value it saw
   * at login on the session, and a session whose value is older is no longer logged in.
   */
  sessionEpoch: number;
  /** A B2B buyer's market and pricelist (ERP ids, from `accounts_Update`): the buyer shops in them. */
  market?: string;
  pricelist?: string;
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
  /**
   * `POST password-reset-email/{email}`: answers once `linkUri` is checked (400 `{linkUri}` when it is not a
   * path), before the e-mail is looked up; the mail, when a customer has the e-mail, goes out afterwards.
   */
  requestPasswordReset(email: string, linkUri?: string): Promise<void>;
  /**
   * `POST password-reset`: the customer with the new password and a raised `sessionEpoch`; 406 `{i: not valid}`
   * for an unknown, used or expired link, 406 `{newPassword: not valid}` for a refused password (the link stays usable).
   */
  resetPassword(id: string, secret: string, newPassword: string): Promise<CustomerDto>;
  /** `POST newsletter-subscription`: idempotent; the first consent's time is kept. 400 naming a malformed field. */
  subscribeNewsletter(subscription: NewsletterSubscriptionDto): Promise<void>;
  /** `POST back-in-stock-subscription`: one mail when the item's stock rises above zero. */
  subscribeBackInStock(subscription: BackInStockSubscriptionDto): Promise<void>;
}

export interface NewsletterSubscriptionDto {
  email: string;
  country?: string;
  language?: string;
}

export interface BackInStockSubscriptionDto {
  email: string;
  /** `<productId>-<sizeId>`; the edge has checked that the catalog has it. */
  item: string;
}

/** An address with every field empty (a new customer's, or the base a partial update fills). */
export const emptyAddress = (): AddressDto => Object.fromEntries(ADDRESS_FIELDS.map((f) => [f, ''])) as AddressDto;
