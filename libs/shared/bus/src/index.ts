export * from './event';
export * from './event-bus.port';
