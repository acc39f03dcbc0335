export * from './engines';
