/** One line of a selection as the checkout API shows it (DESIGN §6: like an order item). */
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
  priceEach: string;
  priceEachAsNumber: number;
  totalPrice: string;
  totalPriceAsNumber: number;
  priceEachBeforeDiscount: string;
  priceEachBeforeDiscountAsNumber: number;
  anyDiscount: boolean;
}

export interface SelectionTotalsDto {
  itemsTotalPrice: string;
  itemsTotalPriceAsNumber: number;
  grandTotalPrice: string;
  grandTotalPriceAsNumber: number;
  totalQuantity: number;
}

/** The `selection` of the checkout envelope, plus the internal id the edge keeps in the session. */
export interface SelectionDto {
  /** Internal id; the edge strips it before answering. */
  id: string;
  currency: string;
  paymentMethod: string;
  country: string | null;
  state: string | null;
  language: string | null;
  items: SelectionItemDto[];
  totals: SelectionTotalsDto;
}

/** A priced item to add: the edge asks the catalog and passes what the cart stores on the line. */
export interface AddItemCommand {
  item: string;
  product: string;
  size: string;
  sku: string;
  ean: string;
  productName: string;
  brandName: string;
  priceEachAsNumber: number;
  quantity: number;
}

export interface NewSelectionCommand {
  currency: string;
  country: string | null;
  language: string | null;
}

/** Questions the edge asks the cart synchronously (DESIGN §2). HTTP and in-process implementations. */
export interface CartClient {
  createSelection(command: NewSelectionCommand): Promise<SelectionDto>;
  /** null when no open selection has that id. */
  getSelection(selectionId: string): Promise<SelectionDto | null>;
  addItem(selectionId: string, command: AddItemCommand): Promise<SelectionDto>;
}
