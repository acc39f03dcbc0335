import { ChangeEventQueryType, ChangeEventType } from '@commerce/erp-contracts';
import { MalformedRequestError, UnknownEventError } from './backoffice.errors';
import type { ChangeEvent, ChangeFeed } from './change-feed.port';

export interface GetEventsDeps {
  feed: ChangeFeed;
  /** Most events one call returns (the spec's 100 by default). */
  pageSize: number;
}

export interface GetEventsRequest {
  username: string;
  type: string;
  /** `events_GetByMarkets`: the market ids; `events_Get`: absent. */
  markets?: readonly string[];
}

const TYPES = ['all', ...ChangeEventType.options].join(', ');

/** `events_Get` / `events_GetByMarkets`: the caller's events not yet done, oldest first, one page. */
export async function getEvents(deps: GetEventsDeps, request: GetEventsRequest): Promise<ChangeEvent[]> {
  const parsed = ChangeEventQueryType.safeParse(request.type.trim());
  if (!parsed.success) throw new MalformedRequestError(`type must be one of ${TYPES}`);
  if (request.markets !== undefined && request.markets.length === 0)
    throw new MalformedRequestError('markets must name at least one market');
  if (request.markets?.some((m) => m.trim() === '')) throw new MalformedRequestError('every market needs an id');
  return deps.feed.list(request.username, {
    ...(parsed.data === 'all' ? {} : { type: parsed.data }),
    ...(request.markets ? { markets: request.markets.map((m) => m.trim()) } : {}),
    limit: deps.pageSize,
  });
}

// bigint range of the feed's ids.
const EVENT_NUMBER = /^[1-9]\d{0,17}$/;

/**
 * `events_Done`: marks the events done for the caller, so they leave the caller's later lists. Marking an
 * event done again changes nothing; a number the feed never had refuses the whole call.
 */
export async function markEventsDone(deps: { feed: ChangeFeed }, username: string, numbers: readonly string[]): Promise<void> {
  if (numbers.length === 0) throw new MalformedRequestError('events_Done needs at least one event number');
  const ids = numbers.map((n) => n.trim());
  const malformed = ids.filter((n) => !EVENT_NUMBER.test(n));
  if (malformed.length > 0) throw new UnknownEventError(malformed);
  const { unknown } = await deps.feed.markDone(username, [...new Set(ids)]);
  if (unknown.length > 0) throw new UnknownEventError(unknown);
}
