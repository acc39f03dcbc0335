/** The parts of the checkout API's answers the shop shows (interface.md, openapi.json). */

export interface Item {
  item: string;
  name: string;
  inStock?: boolean;
  stock?: string;
}

export interface Product {
  product: string;
  name: string;
  uri: string;
  variantName?: string;
  brandName?: string;
  collectionName?: string;
  categoryName?: string[];
  excerpt?: string;
  description?: string;
  price: string;
  priceAsNumber: number;
  priceBeforeDiscount: string;
  priceBeforeDiscountAsNumber: number;
  discountPercent?: number;
  showAsOnSale?: boolean;
  newProduct?: boolean;
  inStock?: boolean;
  items: Item[];
  media?: Record<string, string[]>;
  swatch?: { desc: string; hex: string };
  relatedProducts?: Array<{ product: string; relation: string; media?: Record<string, string[]> } & Partial<Product>>;
}

export interface FilterValue {
  value: string;
  count: number;
  totalCount: number;
  data?: Record<string, unknown>;
}

export interface ProductList {
  products: Product[];
  productCount: number;
  filter: Array<{ field: string; values: FilterValue[] }>;
}

export interface Category {
  category: string;
  name: string[];
  uri: string;
  inCategory?: string;
}

export interface Line {
  line: string;
  item: string;
  product: string;
  size: string;
  productName: string;
  brandName?: string;
  quantity: number;
  priceEach: string;
  totalPrice: string;
  priceEachBeforeDiscount: string;
  anyDiscount: boolean;
}

export interface Totals {
  itemsTotalPrice: string | false;
  totalDiscountPrice: string | false;
  shippingPrice: string | false;
  handlingCostPrice: string | false;
  taxDeducted: string | false;
  taxAdded: string | false;
  grandTotalPrice: string | false;
  grandTotalPriceTax: string | false;
  totalQuantity: number;
  taxPercent: number;
}

export interface Selection {
  currency: string;
  paymentMethod: string;
  shippingMethod?: string;
  country?: string;
  language?: string;
  items: Line[];
  discounts?: { anyDiscount: boolean; discount: string; vouchers: Array<{ voucher: string; name: string; discount: string }> };
  totals?: Totals;
}

export interface Country {
  country: string;
  name: string;
  language?: string;
  states?: Array<{ state: string; name: string }>;
}

export interface Address {
  email?: string;
  firstName?: string;
  lastName?: string;
  address1?: string;
  address2?: string;
  city?: string;
  state?: string;
  country?: string;
  phoneNumber?: string;
  zipCode?: string;
}

export interface Envelope {
  token: string;
  selection: Selection;
  products?: Product[];
  location: { country: string | null; name: string; shipTo: boolean; state: string | null };
  paymentMethods: Array<{ paymentMethod: string; name: string; handlingCost?: string; providesCustomerAddressAfterPayment?: boolean }>;
  shippingMethods?: Array<{ shippingMethod: string; name: string; price: string }>;
  countries: Country[];
  language: { language: string; name: string };
  languages: Array<{ language: string; name: string }>;
  loggedIn?: Address;
}

export interface Unavailable {
  item: string;
  product: string;
  originalQuantity: number;
  unavailable: number;
  available: number;
}

export interface Order {
  order: string;
  status: string;
  statusDescription: string;
  date: string;
  paymentMethodName: string;
  shippingMethodName: string;
  currency: string;
  items: Array<{
    item: string;
    product: string;
    productName: string;
    brandName?: string;
    size: string;
    quantity: number;
    priceEach: string;
    totalPrice: string;
  }>;
  totals: Totals;
  discounts?: { anyDiscount: boolean; discount: string };
  address?: Address & { countryName?: string };
  shippingAddress?: Address & { countryName?: string };
  shipments: Array<{ shippedDate: string; carrier: string; service: string; trackingId: string; trackingUrl: string }>;
}
