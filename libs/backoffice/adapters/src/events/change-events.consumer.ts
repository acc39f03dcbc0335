import { changeEventsOf, changeEventTopics, type ChangeEventMapper } from '@commerce/backoffice-core';
import type { EventEnvelope, SubscribeOptions } from '@commerce/shared-bus';
import type { Db, Knex } from '@commerce/shared-db';
import type { Logger } from '@commerce/shared-logging';
import type { ChangeEventStore, SourcedChangeEvent } from './change-events.store';

export const CHANGE_EVENTS_GROUP = 'backoffice-change-events';

/**
 * How long, and for how many requests at most, the consumer keeps whether a request was a SOAP call: long enough
 * for every run of one request's events, short enough that a request id a client reuses later (a caller's
 * `x-request-id` is kept) is asked again.
 */
const SOAP_ANSWER_KEPT_MS = 10_000;
const SOAP_ANSWERS_KEPT = 1000;

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
 * SOAP call, their change events appended in one statement. A malformed event throws:
 * the run falls back to one event at a time, the bus retries it, then moves it to the dead-letter topic.
 */
export function changeEventsConsumer(deps: ChangeEventsConsumerDeps): SubscribeOptions {
  // Whether a request was a SOAP call, asked once for all the runs of its events (a checkout's come as three or
  // four runs, one a topic and partition, within a second). The answer is settled before the first of them
  // arrives: a SOAP batch's row commits with the outbox rows whose events the owners react to.
  const soapRequests = new Map<string, { until: number; known: Promise<boolean> }>();
  const soapAnswer = (trx: Knex.Transaction | undefined, requestId: string): Promise<boolean> => {
    const now = Date.now();
    const kept = soapRequests.get(requestId);
    if (kept && kept.until > now) return kept.known;
    const known = deps.store.isSoapRequest(trx, requestId);
    soapRequests.delete(requestId);
    soapRequests.set(requestId, { until: now + SOAP_ANSWER_KEPT_MS, known });
    known.catch(() => {
      if (soapRequests.get(requestId)?.known === known) soapRequests.delete(requestId);
    });
    // The oldest first (a Map keeps insertion order).
    for (const [oldest] of soapRequests) {
      if (soapRequests.size <= SOAP_ANSWERS_KEPT) break;
      soapRequests.delete(oldest);
    }
    return known;
  };
  const handle = async (envelopes: EventEnvelope[]): Promise<void> => {
    const causedBySoap = (e: EventEnvelope): Promise<boolean> =>
      e.requestId ? soapAnswer(undefined, e.requestId) : Promise.resolve(false);
    // An id twice in one run is applied once.
    const run = [...new Map(envelopes.map((e) => [e.id, e])).values()];
    const events: SourcedChangeEvent[] = [];
    for (const envelope of run)
      for (const event of await changeEventsOf(deps.mappers, envelope, { echo: deps.echo, causedBySoap }))
        events.push({ ...event, sourceEventId: envelope.id });
    // The dedupe records and the events of the run's new owner events in one statement, in order (a redelivered
    // event's rows are left out by the statement).
    const added = await deps.store.recordRun(
      CHANGE_EVENTS_GROUP,
      run.map((e) => e.id),
      events,
    );
    deps.logger.debug({ events: envelopes.length, added }, 'backoffice: change events recorded');
  };
  return {
    groupId: CHANGE_EVENTS_GROUP,
    topics: changeEventTopics(deps.mappers, deps.echo),
    handle: (envelope) => handle([envelope]),
    handleBatch: handle,
    // Nobody waits on the feed event by event: a fetch gathers for up to 2 s, and what it brought is recorded in a
    // run a partition whatever its requests (each event's SOAP question is its own): under load one fetch, one
    // statement and one commit for many checkouts' events instead of one each (decision 175). A change is in the
    // feed up to 2 s after its event, not 0.5 s; idle, a fetch every 2 s, not 2 a second (decision 200).
    gatherMs: 2000,
    batchAcrossRequests: true,
  };
}
