import { DomainError } from '@commerce/shared-errors';

export class ItemNotFoundError extends DomainError {
  constructor() {
    super('CHECKOUT.ITEM_NOT_FOUND', 'not_found', { item: 'product item not found' });
  }
}

export class ProductNotFoundError extends DomainError {
  constructor() {
    super('CHECKOUT.PRODUCT_NOT_FOUND', 'not_found', { product: 'not found' });
  }
}
