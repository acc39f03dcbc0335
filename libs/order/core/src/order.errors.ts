import { DomainError } from '@commerce/shared-errors';

/** Rolls a placing back when another placing of the same attempt committed first (its number is given back). */
export class AttemptAlreadyPlaced extends Error {
  constructor() {
    super('order: the payment attempt already has an order');
  }
}

export class InvalidPagingError extends DomainError {
  constructor(field: 'from' | 'size', message: string) {
    super('ORDER.INVALID_PAGING', 'invalid', { [field]: message });
  }
}
