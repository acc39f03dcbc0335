export * from './soap-entities';
export * from './backoffice.events';
