export * from './logger';
export * from './log-destination';
