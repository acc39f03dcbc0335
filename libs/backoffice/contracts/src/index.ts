export * from './soap-entities';
export * from './backoffice.events';
export * from './soap-namespace';
export * from './change-events';
export * from './scrypt-hash';
