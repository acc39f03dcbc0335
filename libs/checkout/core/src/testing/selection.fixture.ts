import type { SelectionDto } from '@commerce/cart-contracts';

/** A selection with one line of item `1-1` (product `1`, 100 SEK each) in Sweden, for tests of what the edge makes of it. */
export const oneLineSelection = (quantity = 1): SelectionDto => ({
  id: 'sel1',
  currency: 'SEK',
  paymentMethod: '',
  shippingMethod: '',
  country: 'SE',
  state: null,
  language: 'sv',
  vouchers: [],
  paymentFields: {},
  items: [
    {
      line: 'aa',
      item: '1-1',
      product: '1',
      size: '1',
      sku: '',
      ean: '',
      productName: 'Jacket',
      brandName: '',
      quantity,
      priceEachMinor: 10000,
      priceEachBeforeDiscountMinor: 10000,
    },
  ],
});

/** A shopper's whole address in Sweden, as `POST payment` takes it (the payment contract's and the edge's specs). */
export const swedishShopperAddress = (): Record<string, string> => ({
  email: 'anna@example.com',
  firstName: 'Anna',
  lastName: 'Andersson',
  address1: 'Storgatan 1',
  city: 'Stockholm',
  zipCode: '11451',
  country: 'SE',
});
