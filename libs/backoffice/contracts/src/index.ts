export * from './soap-namespace';
