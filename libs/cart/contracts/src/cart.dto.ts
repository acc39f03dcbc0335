/**
 * One line of a selection as the cart keeps it (DESIGN §6: like an order item): the item, its quantity and its
 * unit prices as of the line's last add, in integer minor units (öre, cents) of the selection's currency. The cart
 * sums nothing: the checkout's pricing module (`libs/checkout/core/src/pricing.ts`) prices and totals a selection.
 */
export interface SelectionItemDto {
  line: string;
  item: string;
  product: string;
  size: string;
  sku: string;
  ean: string;
  productName: string;
  brandName: string;
  quantity: number;
  priceEachMinor: number;
  /** The price before a sale; equal to priceEachMinor when the item is not on sale. */
  priceEachBeforeDiscountMinor: number;
  /** The ERP's ids of the item as of the line's last add; absent on a line added before the cart kept them. */
  external?: LineExternalIds;
}

/**
 * An item's product, variation, size and brand by the ERP's ids (the catalog's `ItemExternalIds`, brand '' when
 * none): the order placed from the line names them in the SOAP order events (decisions 113, 145).
 */
export interface LineExternalIds {
  product: string;
  variation: string;
  size: string;
  brand: string;
}

/** The selection as the cart keeps it, plus the internal id the edge keeps in the session. */
export interface SelectionDto {
  /** Internal id; the edge strips it before answering. */
  id: string;
  currency: string;
  paymentMethod: string;
  shippingMethod: string;
  country: string | null;
  state: string | null;
  language: string | null;
  /** Voucher codes entered, in the order entered; the edge decides which apply. */
  vouchers: string[];
  /** What an embedded payment form reported back (`PUT payment-fields`). */
  paymentFields: Record<string, string>;
  items: SelectionItemDto[];
}

/** What the cart stores of an item on its line: the edge asks the catalog and passes it on. */
export interface LineItemData {
  item: string;
  product: string;
  /** The size's name as the product's item shows it (`M`), not its id (that is in `item`). */
  size: string;
  sku: string;
  ean: string;
  productName: string;
  brandName: string;
  /** Minor units of the selection's currency, as the catalog prices the item in the session's pricelist. */
  priceEachMinor: number;
  /** The price before a sale; absent or not higher than the price: no sale. */
  priceEachBeforeDiscountMinor?: number;
  /** The product's `itemQuantityMinimum` and `itemQuantityMultipleOf`; 1 when absent. */
  quantityMinimum?: number;
  quantityMultipleOf?: number;
  /** The ERP's ids of the item, as the catalog's product answered them with the item (kept on the line for the order). */
  external?: LineExternalIds;
}

/** A priced item to add: the edge asks the catalog and passes what the cart stores on the line. */
export interface AddItemCommand extends LineItemData {
  quantity: number;
}

/** One change of the lines; a change list is applied whole or not at all. */
export type LineOperation =
  /** Adds `quantity` of the item: to its line, or on a new line. */
  | { op: 'addItem'; item: LineItemData; quantity: number }
  /** Sets the item's quantity (0 removes its line). */
  | { op: 'setItem'; item: LineItemData; quantity: number }
  /** Adds to a line (a negative quantity removes; reaching 0 removes the line). */
  | { op: 'addLine'; line: string; quantity: number }
  /** Sets a line's quantity (0 removes it). */
  | { op: 'setLine'; line: string; quantity: number }
  | { op: 'removeLine'; line: string };

/** Fields of the selection itself, set as given. */
export interface SelectionFields {
  currency?: string;
  country?: string | null;
  state?: string | null;
  language?: string | null;
  paymentMethod?: string;
  shippingMethod?: string;
  vouchers?: string[];
  paymentFields?: Record<string, string>;
}

/** New unit prices of lines (a change of market or pricelist), in minor units of the selection's currency. */
export interface LinePrice {
  line: string;
  priceEachMinor: number;
  priceEachBeforeDiscountMinor?: number;
}

/** One atomic change of a selection: under the selection's row lock, so concurrent changes never lose one. */
export interface SelectionChange {
  lines?: LineOperation[];
  set?: SelectionFields;
  prices?: LinePrice[];
  removeLines?: string[];
  /** Adds a voucher code unless the selection has it (under the lock, so concurrent additions both stay). */
  addVoucher?: string;
  /** Removes a voucher code (compared case-insensitively). */
  removeVoucher?: string;
  /** Merged into the stored payment fields. */
  mergePaymentFields?: Record<string, string>;
}

export interface NewSelectionCommand {
  currency: string;
  country: string | null;
  language: string | null;
  /** A logged-in customer's: the selection is saved to the account (one open saved selection per customer). */
  customerId?: string;
  /**
   * The selection's first change, made with it (decision 157): created with the change applied, or not at all when
   * the change is refused (its error as `changeSelection`'s). With `customerId` and a saved selection already
   * there, the change is made to that one.
   */
  change?: SelectionChange;
}

/** Questions the edge asks the cart synchronously (DESIGN §2). HTTP and in-process implementations. */
export interface CartClient {
  createSelection(command: NewSelectionCommand): Promise<SelectionDto>;
  /**
   * Several new selections, each with the outcome `createSelection` gives it (decision 184). Where absent, a
   * caller makes them one by one.
   */
  createSelections?(commands: NewSelectionCommand[]): Promise<Array<PromiseSettledResult<SelectionDto>>>;
  /** null when no open selection has that id. */
  getSelection(selectionId: string): Promise<SelectionDto | null>;
  addItem(selectionId: string, command: AddItemCommand): Promise<SelectionDto>;
  /** Applies the change whole or not at all; errors name the field (`quantity`, `line`). */
  changeSelection(selectionId: string, change: SelectionChange): Promise<SelectionDto>;
  /**
   * Several changes, each with the outcome `changeSelection` gives it, a selection's in the order given
   * (decision 78). Where absent, a caller makes them one by one.
   */
  changeSelections?(changes: Array<{ id: string; change: SelectionChange }>): Promise<Array<PromiseSettledResult<SelectionDto>>>;
  /** The customer's open saved selection, or null. */
  savedSelection(customerId: string): Promise<SelectionDto | null>;
  /**
   * At login: the lines of the anonymous selection are merged into the customer's saved selection (an
   * item on both adds up) and the anonymous one is closed; without a saved selection the anonymous one
   * becomes it. The saved selection, or null when there is neither.
   */
  claimSelection(customerId: string, anonymousSelectionId: string | null): Promise<SelectionDto | null>;
  /** Closes the selection (its order was placed); closing it again, or an unknown one, does nothing. */
  closeSelection(selectionId: string): Promise<void>;
}
