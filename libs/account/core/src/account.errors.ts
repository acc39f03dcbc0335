import { DomainError } from '@commerce/shared-errors';

/** `register` (or a change of e-mail) with an e-mail another customer has: 409 naming the field. */
export class EmailTakenError extends DomainError {
  constructor(field: 'email' | 'newEmail' = 'email') {
    super('ACCOUNT.EMAIL_TAKEN', 'conflict', { [field]: 'already registered' });
  }
}

/** A password the policy refuses (password-policy.ts): 406 naming the field. */
export class PasswordNotValidError extends DomainError {
  constructor(field: 'password' | 'newPassword' = 'password') {
    super('ACCOUNT.PASSWORD_NOT_VALID', 'not_acceptable', { [field]: 'not valid' });
  }
}

/** A wrong current password (and, at the edge, a login that fails for any reason): 406 `{password: incorrect}`. */
export class PasswordIncorrectError extends DomainError {
  constructor() {
    super('ACCOUNT.PASSWORD_INCORRECT', 'not_acceptable', { password: 'incorrect' });
  }
}

export class CustomerNotFoundError extends DomainError {
  constructor() {
    super('ACCOUNT.CUSTOMER_NOT_FOUND', 'not_found', { customer: 'not found' });
  }
}

/** A reset link that is unknown, used, expired or not for this secret: one answer for all. */
export class ResetLinkNotValidError extends DomainError {
  constructor() {
    super('ACCOUNT.RESET_LINK_NOT_VALID', 'not_acceptable', { i: 'not valid' });
  }
}

/** Without a configured frontend URL no link can be made (the client may not choose the host). */
export class ResetNotConfiguredError extends DomainError {
  constructor() {
    super('ACCOUNT.RESET_NOT_CONFIGURED', 'unavailable', { email: 'password reset is not configured' });
  }
}
