import { DomainError } from '@commerce/shared-errors';

export class InvalidPagingError extends DomainError {
  constructor(field: 'from' | 'size', message: string) {
    super('ORDER.INVALID_PAGING', 'invalid', { [field]: message });
  }
}

/** Completing an attempt the payment service does not know as paid (unknown, started, declined, cancelled). */
export class PaymentNotAuthorizedError extends DomainError {
  constructor(status: string) {
    super('ORDER.PAYMENT_NOT_AUTHORIZED', 'not_acceptable', {
      payment: status === 'not found' ? 'not found' : `not authorized (${status})`,
    });
  }
}
