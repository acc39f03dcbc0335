export * from './account.errors';
export * from './customer';
export * from './customer.repository';
export * from './password-policy';
export * from './account.use-cases';
