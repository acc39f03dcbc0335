import { DomainError, type ErrorFields } from '@commerce/shared-errors';

export class ProductNotFoundError extends DomainError {
  constructor() {
    super('CATALOG.PRODUCT_NOT_FOUND', 'not_found', { product: 'not found' });
  }
}

/** The spec's wording for an unknown item: `{item: "product item not found"}`. */
export class ItemNotFoundError extends DomainError {
  constructor() {
    super('CATALOG.ITEM_NOT_FOUND', 'not_found', { item: 'product item not found' });
  }
}

/** A product from the ERP that passed the SOAP schema but cannot be applied (e.g. a stock quantity that is not a number). */
export class InvalidProductError extends DomainError {
  constructor(fields: ErrorFields) {
    super('CATALOG.INVALID_PRODUCT', 'invalid', fields);
    this.name = 'InvalidProductError';
  }
}

/** The search engine does not answer; the message is one line, safe to log. */
export class SearchUnavailableError extends DomainError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('CATALOG.SEARCH_UNAVAILABLE', 'unavailable', { search: 'unavailable' });
    this.message = message;
    this.name = 'SearchUnavailableError';
    if (options?.cause !== undefined) (this as { cause?: unknown }).cause = options.cause;
  }
}

/** A size, pricelist or delivery window from the ERP that passed the SOAP schema but cannot be applied (a bad number or date). */
export class InvalidUpsertError extends DomainError {
  constructor(
    readonly entity: string,
    fields: ErrorFields,
  ) {
    super('CATALOG.INVALID_UPSERT', 'invalid', fields);
    this.name = 'InvalidUpsertError';
    this.message = `invalid ${entity}: ${Object.entries(fields)
      .map(([k, v]) => `${k} ${v}`)
      .join('; ')}`;
  }
}
