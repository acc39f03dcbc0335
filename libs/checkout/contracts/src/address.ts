/** The address fields of `PUT payment-fields` and `POST payment`, which an order needs (the spec's Address plus `company`; DESIGN §6). */
export const ADDRESS_FIELDS = [
  'email',
  'firstName',
  'lastName',
  'company',
  'address1',
  'address2',
  'city',
  'zipCode',
  'state',
  'country',
  'phoneNumber',
] as const;
