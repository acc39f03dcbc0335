export * from './soap-entities';
export * from './backoffice.events';
export * from './soap-namespace';
