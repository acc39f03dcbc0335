import { changeEventsOf, changeEventTopics, type ChangeEventMapper } from '@commerce/backoffice-core';
import { consumeBatchOnce, type EventEnvelope, type SubscribeOptions } from '@commerce/shared-bus';
import type { Db } from '@commerce/shared-db';
import type { Logger } from '@commerce/shared-logging';
import type { ChangeEventStore, SourcedChangeEvent } from './change-events.store';

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
 * and the dedupe records and the feed's rows commit in one transaction, so a redelivery adds nothing. The
 * events of one request (a SOAP batch's ~14,000 StockChanged, a checkout's order events) come as a run
 * (`handleBatch`) and are recorded in one transaction, in order, asking once whether that request was a
 * SOAP call, their feed rows appended together (one lock and one insert a thousand rows, not one of each an
 * event); one at a time they cost a transaction and five statements each. A malformed event throws:
 * the run falls back to one event at a time, the bus retries it, then moves it to the dead-letter topic.
 */
export function changeEventsConsumer(deps: ChangeEventsConsumerDeps): SubscribeOptions {
  const handle = async (envelopes: EventEnvelope[]): Promise<void> => {
    let added = 0;
    const applied = await consumeBatchOnce(deps.db, CHANGE_EVENTS_GROUP, envelopes, async (trx, fresh) => {
      const soapRequests = new Map<string, Promise<boolean>>();
      const causedBySoap = (e: EventEnvelope): Promise<boolean> => {
        if (!e.requestId) return Promise.resolve(false);
        let known = soapRequests.get(e.requestId);
        if (!known) soapRequests.set(e.requestId, (known = deps.store.isSoapRequest(trx, e.requestId)));
        return known;
      };
      const rows: SourcedChangeEvent[] = [];
      for (const envelope of fresh)
        for (const event of await changeEventsOf(deps.mappers, envelope, { echo: deps.echo, causedBySoap }))
          rows.push({ ...event, sourceEventId: envelope.id });
      await deps.store.append(trx, rows);
      added = rows.length;
    });
    deps.logger.debug({ events: envelopes.length, applied: applied.length, added }, 'backoffice: change events recorded');
  };
  return {
    groupId: CHANGE_EVENTS_GROUP,
    topics: changeEventTopics(deps.mappers, deps.echo),
    handle: (envelope) => handle([envelope]),
    handleBatch: handle,
  };
}
