export * from './account.errors';
export * from './account.validation';
export * from './customer';
export * from './customer.repository';
export * from './password-policy';
export * from './account.use-cases';
export * from './password-reset.use-cases';
export * from './subscriptions.use-cases';
