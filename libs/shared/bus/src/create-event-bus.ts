import { createLogger, type Logger } from '@commerce/shared-logging';
import type { EventBus, SubscribeOptions } from './event-bus.port';
import { createKafkaBus } from './kafka-bus';
import { createMemoryBus } from './memory-bus';

export interface EventBusOptions {
  clientId: string;
  logger?: Logger;
  /**
   * Put before every consumer group this process joins (default none): a second deployment of a service
   * on the same Kafka (a test beside a running one) then gets every event without taking any from the first.
   */
  groupPrefix?: string;
}

/**
 * The bus named by KAFKA_BROKERS: `memory` for the embedded one, otherwise a comma-separated
 * `host:port` list of Kafka brokers, checked now (BusUnavailableError when none answers).
 */
export async function createEventBus(brokers: string, options: EventBusOptions): Promise<EventBus> {
  const logger = options.logger ?? createLogger(options.clientId);
  const value = brokers.trim();
  if (value === 'memory') return createMemoryBus({ logger });
  const list = value
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  if (list.length === 0 || list.some((b) => !/^[^\s:/]+:\d+$/.test(b))) {
    throw new Error(`event bus: invalid brokers ${JSON.stringify(brokers)} (expected "memory" or "host:port,host:port")`);
  }
  const bus = createKafkaBus(list, { clientId: options.clientId, logger });
  const prefix = options.groupPrefix ?? '';
  if (!prefix) return bus;
  const kafka = await bus;
  return { ...kafka, subscribe: (subscription: SubscribeOptions) => kafka.subscribe({ ...subscription, groupId: `${prefix}${subscription.groupId}` }) };
}
