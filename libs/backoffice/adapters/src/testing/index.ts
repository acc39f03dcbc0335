export * from './soap-request';
