import { createLogger, type Logger } from '@commerce/shared-logging';
import type { EventEnvelope } from '@commerce/shared-events';
import type { EncodedEvent, EventBus, SubscribeOptions } from './event-bus.port';
import { createKafkaBus } from './kafka-bus';
import { createMemoryBus } from './memory-bus';

export interface EventBusOptions extends BusNaming {
  clientId: string;
  logger?: Logger;
}

/** What a namespace may hold: Kafka's topic characters, not starting with a dot, short enough to leave room for the topic. */
export const KAFKA_NAMESPACE_PATTERN = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}$/;

export interface BusNaming {
  /**
   * KAFKA_NAMESPACE (default none): every topic this process publishes to or reads, its dead-letter topics
   * and its consumer groups are named `<namespace>.<name>` on Kafka, so runs that share one broker (a
   * benchmark, an e2e beside a running stack, CI) neither read each other's backlog nor take each other's
   * events. The events themselves keep their topic: handlers never see the namespace.
   */
  namespace?: string;
  /**
   * KAFKA_GROUP_PREFIX (default none): put before every consumer group this process joins, so a second
   * deployment of a service in the same namespace (a test beside a running one) gets every event without
   * taking any from the first.
   */
  groupPrefix?: string;
  /** KAFKA_HANDLER_TIMEOUT_MS: a subscription's default `handlerTimeoutMs` (Kafka only; decision 76). */
  handlerTimeoutMs?: number;
  /** KAFKA_HANDLER_MAX_TIMEOUTS: a subscription's default `maxHandlerTimeouts` (Kafka only; decision 85). */
  maxHandlerTimeouts?: number;
}

/**
 * `kafkaNamingEnv`'s variables (KAFKA_NAMESPACE, KAFKA_GROUP_PREFIX, KAFKA_HANDLER_TIMEOUT_MS, KAFKA_HANDLER_MAX_TIMEOUTS),
 * for `createEventBus`.
 */
export const busNaming = (config: {
  KAFKA_NAMESPACE: string;
  KAFKA_GROUP_PREFIX: string;
  KAFKA_HANDLER_TIMEOUT_MS?: number;
  KAFKA_HANDLER_MAX_TIMEOUTS?: number;
}): BusNaming => ({
  namespace: config.KAFKA_NAMESPACE,
  groupPrefix: config.KAFKA_GROUP_PREFIX,
  handlerTimeoutMs: config.KAFKA_HANDLER_TIMEOUT_MS,
  maxHandlerTimeouts: config.KAFKA_HANDLER_MAX_TIMEOUTS,
});

/**
 * A bus whose topics (so its dead-letter topics) and consumer groups are named `<namespace>.<name>`,
 * and whose groups carry `groupPrefix` too; the events handed to handlers carry their own topic again.
 */
export function withBusNaming(bus: EventBus, naming: BusNaming): EventBus {
  const prefix = naming.namespace ? `${naming.namespace}.` : '';
  const groupPrefix = naming.groupPrefix ?? '';
  if (!prefix && !groupPrefix) return bus;
  const encodedOut = bus.publishEncoded?.bind(bus);
  const outward = (event: EventEnvelope): EventEnvelope => ({ ...event, topic: `${prefix}${event.topic}` });
  const inward = (event: EventEnvelope): EventEnvelope =>
    prefix && event.topic.startsWith(prefix) ? { ...event, topic: event.topic.slice(prefix.length) } : event;
  return {
    kind: bus.kind,
    publish: (events) => bus.publish(prefix ? events.map(outward) : events),
    // Serialised envelopes (the outbox relay's, decision 99) go to the namespaced topic; their text keeps the
    // event's own topic, which is what `inward` gives handlers of the events `publish` sent.
    ...(encodedOut
      ? { publishEncoded: (messages: readonly EncodedEvent[]) => encodedOut(prefix ? messages.map((m) => ({ ...m, topic: `${prefix}${m.topic}` })) : messages) }
      : {}),
    subscribe: ({ handle, handleBatch, ...subscription }: SubscribeOptions) =>
      bus.subscribe({
        ...subscription,
        groupId: `${prefix}${groupPrefix}${subscription.groupId}`,
        topics: subscription.topics.map((topic) => `${prefix}${topic}`),
        handle: (event) => handle(inward(event)),
        ...(handleBatch ? { handleBatch: (events: EventEnvelope[]) => handleBatch(events.map(inward)) } : {}),
      }),
    ping: () => bus.ping(),
    close: () => bus.close(),
  };
}

/**
 * The bus named by KAFKA_BROKERS: `memory` for the embedded one, otherwise a comma-separated
 * `host:port` list of Kafka brokers, checked now (BusUnavailableError when none answers). The namespace
 * and group prefix apply to Kafka only: the memory bus is the process's own.
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
  const namespace = options.namespace ?? '';
  if (namespace && !KAFKA_NAMESPACE_PATTERN.test(namespace)) {
    throw new Error(`event bus: invalid namespace ${JSON.stringify(namespace)} (expected letters, digits, . _ -, not starting with .)`);
  }
  const bus = await createKafkaBus(list, {
    clientId: options.clientId,
    logger,
    handlerTimeoutMs: options.handlerTimeoutMs,
    maxHandlerTimeouts: options.maxHandlerTimeouts,
  });
  return withBusNaming(bus, { namespace, groupPrefix: options.groupPrefix ?? '' });
}
