export * from './address';
export * from './openapi';
