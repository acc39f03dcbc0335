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

/** `POST uri` found nothing of the kinds asked (spec: 404 `{uri: not found}`). */
export class UriNotFoundError extends DomainError {
  constructor() {
    super('CHECKOUT.URI_NOT_FOUND', 'not_found', { uri: 'not found' });
  }
}

/** An unknown country, state, language, payment or shipping method, line or voucher: 404 naming the field. */
export class NotFoundError extends DomainError {
  constructor(field: string) {
    super(`CHECKOUT.${field.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}_NOT_FOUND`, 'not_found', { [field]: 'not found' });
  }
}

/** A voucher that does not exist or cannot be used now: 406 `{voucher: why}`. */
export class VoucherRefusedError extends DomainError {
  constructor(reason: string) {
    super('CHECKOUT.VOUCHER_REFUSED', 'not_acceptable', { voucher: reason });
  }
}

/** An operation that needs a login, on an anonymous token: 403 `{accessRight: denied}`. */
export class AccessDeniedError extends DomainError {
  constructor() {
    super('CHECKOUT.ACCESS_DENIED', 'forbidden', { accessRight: 'denied' });
  }
}

/** A failed login, whatever the reason (unknown e-mail, wrong password): one status, one body (spec: never reveals the e-mail). */
export class LoginIncorrectError extends DomainError {
  constructor() {
    super('CHECKOUT.LOGIN_INCORRECT', 'not_acceptable', { password: 'incorrect' });
  }
}

/** A request the checkout cannot take as it stands (terms not accepted, nothing to pay, no shipping there): 406 naming the field. */
export class CheckoutRefusedError extends DomainError {
  constructor(field: string, reason: string) {
    super('CHECKOUT.REFUSED', 'not_acceptable', { [field]: reason });
  }
}

/** The stock check at `POST payment` found items missing: 410 with `unavailable` and the selection as it is now. */
export class ItemsUnavailableError extends DomainError {
  constructor(answer: Record<string, unknown>) {
    super('CHECKOUT.ITEMS_UNAVAILABLE', 'gone', { items: 'unavailable' }, answer);
  }
}
