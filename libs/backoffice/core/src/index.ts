export * from './backoffice.errors';
export * from './password-hasher.port';
export * from './soap-login';
export * from './upsert-store.port';
export * from './entity-batch.validation';
export * from './receive-entities.use-case';
