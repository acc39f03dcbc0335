export * from './domain-error';
export * from './infrastructure-wait';
export * from './unavailable';
