export * from './domain-error';
export * from './infrastructure-wait';
