export * from './soap-entities';
export * from './upsert-received.events';
export * from './change-events';
export * from './order-statuses';
export * from './scrypt-hash';
