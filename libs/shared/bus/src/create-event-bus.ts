import { createLogger, type Logger } from '@commerce/shared-logging';
import type { EventBus } from './event-bus.port';
import { createKafkaBus } from './kafka-bus';
import { createMemoryBus } from './memory-bus';

export interface EventBusOptions {
  clientId: string;
  logger?: Logger;
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
  return createKafkaBus(list, { clientId: options.clientId, logger });
}
