import { changeEventsOf, changeEventTopics, type ChangeEventMapper } from '@commerce/backoffice-core';
import { consumeOnce, type EventEnvelope, type SubscribeOptions } from '@commerce/shared-bus';
import type { Db } from '@commerce/shared-db';
import type { Logger } from '@commerce/shared-logging';
import type { ChangeEventStore } from './change-events.store';

export const CHANGE_EVENTS_GROUP = 'backoffice-change-events';

export interface ChangeEventsConsumerDeps {
  db: Db;
  store: ChangeEventStore;
  mappers: readonly ChangeEventMapper[];
  /** SOAP_ECHO_EVENTS. */
  echo: boolean;
  logger: Logger;
}

/**
 * Builds the SOAP change-event feed from the owners' events: each event is mapped by its owner's mapper,
 * and the dedupe record and the feed's rows commit in one transaction, so a redelivery adds nothing. A
 * malformed event throws: the bus retries it, then moves it to the topic's dead-letter topic.
 */
export function changeEventsConsumer(deps: ChangeEventsConsumerDeps): SubscribeOptions {
  return {
    groupId: CHANGE_EVENTS_GROUP,
    topics: changeEventTopics(deps.mappers, deps.echo),
    handle: async (envelope: EventEnvelope) => {
      let added = 0;
      await consumeOnce(deps.db, CHANGE_EVENTS_GROUP, envelope, async (trx) => {
        const events = await changeEventsOf(deps.mappers, envelope, {
          echo: deps.echo,
          causedBySoap: async (e) => (e.requestId ? deps.store.isSoapRequest(trx, e.requestId) : false),
        });
        await deps.store.append(trx, events, envelope.id);
        added = events.length;
      });
      deps.logger.debug({ eventId: envelope.id, type: envelope.type, added }, 'backoffice: change events recorded');
    },
  };
}
