export * from './account.migrations';
export * from './customer.knex-repository';
export * from './argon2.password-hasher';
export * from './account.internal-routes';
export * from './account.service';
export * from './account.env';
