export * from '@commerce/shared-events';
export * from './event-bus.port';
export {
  DEFAULT_MAX_ATTEMPTS,
  ERROR_HEADER,
  EVENT_ID_HEADER,
  EVENT_TYPE_HEADER,
  InvalidEnvelopeError,
  decodeEnvelope,
  encodeEnvelope,
} from './envelope-codec';
export * from './memory-bus';
export * from './kafka-bus';
export * from './kafka-heartbeats';
export { kafkaRequestListener, observeKafka, type KafkaObserver } from './kafka-instruments';
export * from './create-event-bus';
export * from './outbox';
export * from './retention-pruner';
