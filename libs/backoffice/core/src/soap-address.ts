/** The spec's Address fields (checkout names), as the SOAP entities name them. */
export interface CheckoutAddressFields {
  firstName: string;
  lastName: string;
  address1: string;
  address2: string;
  city: string;
  state: string;
  zipCode: string;
  country: string;
  email: string;
  phoneNumber: string;
}

/** An address of the checkout API in the SOAP entities' names (ADDRESS, customer, buyer). */
export const soapAddressFields = (a: CheckoutAddressFields) => ({
  firstname: a.firstName,
  lastname: a.lastName,
  address1: a.address1,
  address2: a.address2,
  city: a.city,
  state: a.state,
  zipcode: a.zipCode,
  country: a.country,
  email: a.email,
  telephone: a.phoneNumber,
});
