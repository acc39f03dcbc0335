import { DomainError } from '@commerce/shared-errors';

export class SelectionNotFoundError extends DomainError {
  constructor() {
    super('CART.SELECTION_NOT_FOUND', 'not_found', { selection: 'not found' });
  }
}

export class LineNotFoundError extends DomainError {
  constructor() {
    super('CART.LINE_NOT_FOUND', 'not_found', { line: 'not found' });
  }
}

export class InvalidQuantityError extends DomainError {
  constructor(max: number) {
    super('CART.INVALID_QUANTITY', 'invalid', { quantity: `must be a whole number from 1 to ${max}` });
  }
}

/** The product's itemQuantityMinimum / itemQuantityMultipleOf refuse the line's resulting quantity. */
export class QuantityRuleError extends DomainError {
  constructor(message: string) {
    super('CART.QUANTITY_RULE', 'invalid', { quantity: message });
  }
}
