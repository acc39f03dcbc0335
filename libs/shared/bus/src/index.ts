export * from './event';
export * from './event-bus.port';
export * from './envelope-codec';
export * from './memory-bus';
export * from './kafka-bus';
export * from './create-event-bus';
export * from './outbox';
