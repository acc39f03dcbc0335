export * from './account.dto';
export * from './account.http-client';
export * from './account.events';
export * from './password-hash';
export * from './customer-fields';
