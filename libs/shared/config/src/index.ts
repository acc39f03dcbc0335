export * from './config';
export * from './store-config';
