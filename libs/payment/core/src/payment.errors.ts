import { DomainError } from '@commerce/shared-errors';

export class PaymentMethodNotFoundError extends DomainError {
  constructor() {
    super('PAYMENT.METHOD_NOT_FOUND', 'not_found', { paymentMethod: 'not found' });
  }
}

export class AttemptNotFoundError extends DomainError {
  constructor() {
    super('PAYMENT.ATTEMPT_NOT_FOUND', 'not_found', { paymentMethodFields: 'payment not found' });
  }
}

/** What the visitor brought back does not hold: a bad signature, another amount or currency than the attempt's. */
export class PaymentResultInvalidError extends DomainError {
  constructor(reason: string) {
    super('PAYMENT.RESULT_INVALID', 'invalid', { paymentMethodFields: reason });
  }
}

/** A webhook whose signature or content does not hold. */
export class NotificationInvalidError extends DomainError {
  constructor(reason: string) {
    super('PAYMENT.NOTIFICATION_INVALID', 'invalid', { notification: reason });
  }
}

/** `POST address-search` for a method without a registry, or outside its country. */
export class AddressSearchRefusedError extends DomainError {
  constructor(field: 'paymentMethod' | 'country', reason: string) {
    super('PAYMENT.ADDRESS_SEARCH_REFUSED', 'not_acceptable', { [field]: reason });
  }
}

/** Voiding an attempt that is not authorized (started, declined, cancelled). */
export class AttemptNotVoidableError extends DomainError {
  constructor(status: string) {
    super('PAYMENT.NOT_VOIDABLE', 'not_acceptable', { payment: `cannot be voided (${status})` });
  }
}

export class IdentityNotFoundError extends DomainError {
  constructor() {
    super('PAYMENT.IDENTITY_NOT_FOUND', 'not_found', { identityNumber: 'not found' });
  }
}
