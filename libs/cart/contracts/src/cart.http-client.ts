import { createInternalCallers, type InternalAnswer, type InternalCall } from '@commerce/shared-internal-client';
import { DomainError } from '@commerce/shared-errors';
import { currentRequestId, withRequestContext } from '@commerce/shared-logging';
import type { AddItemCommand, CartClient, NewSelectionCommand, SelectionChange, SelectionDto } from './cart.dto';

/** The path of the cart's batch of selection changes (decision 78). */
export const CART_CHANGES_PATH = '/internal/cart/changes';

/** One change of a batch, as the edge sends it: the selection, the change, and the request id it was made for. */
export interface BatchedChange {
  id: string;
  change: SelectionChange;
  requestId?: string;
}

/**
 * One change's outcome in a batch's answer, in the batch's order: the selection it left (`ok`), or the status
 * and body the change's own request would have been answered with (`status`, `body`).
 */
export type BatchedOutcome = { ok: SelectionDto } | { status: number; body: unknown };

export interface CartHttpClientOptions {
  /**
   * At most this many selection changes in one internal request (decision 78; default 64). While a batch is
   * in flight the next changes queue and go together when it is answered; 1 sends each change on its own.
   */
  changeBatch?: number;
}

interface Queued extends BatchedChange {
  resolve(selection: SelectionDto | null): void;
  reject(error: unknown): void;
}

/**
 * Selection changes sent in batches (decision 78), natural batching without timers: a change made while no
 * batch is in flight goes at once (alone, on the change's own route); those made while one is in flight queue
 * and go together, in the order they were made, when it is answered. Each change gets its own outcome.
 */
function changeBatcher(call: InternalCall, answerOf: InternalAnswer, max: number) {
  const single = (id: string, change: SelectionChange) =>
    call<SelectionDto>('POST', `/internal/cart/selections/${encodeURIComponent(id)}/changes`, change);
  if (max <= 1) return single;
  const queue: Queued[] = [];
  let inFlight = false;
  /** Each change alone, as its own request would send it (its request id on the call). */
  const alone = (queued: Queued) => inContext(queued.requestId, () => single(queued.id, queued.change)).then(queued.resolve, queued.reject);
  const settle = (batch: Queued[], outcomes: BatchedOutcome[]) =>
    batch.forEach((queued, i) => {
      const outcome = outcomes[i];
      try {
        // An answer without this change's outcome is the cart's failure, as a 5xx of its own request would be.
        queued.resolve(outcome && 'ok' in outcome ? outcome.ok : answerOf<SelectionDto>(outcome?.status ?? 502, outcome?.body));
      } catch (error) {
        queued.reject(error);
      }
    });
  const send = (batch: Queued[]): Promise<unknown> => {
    if (batch.length === 1) return alone(batch[0]!);
    const changes = batch.map(({ id, change, requestId }): BatchedChange => ({ id, change, requestId }));
    return inContext(batch[0]!.requestId, () => call<{ outcomes: BatchedOutcome[] }>('POST', CART_CHANGES_PATH, { changes })).then(
      // A cart without the batch route (a bare 404: nothing applied) takes each change on its own route.
      (answer): unknown => (answer ? settle(batch, answer.outcomes ?? []) : Promise.all(batch.map(alone))),
      (error: unknown) => batch.forEach((queued) => queued.reject(error)),
    );
  };
  const flush = (): void => {
    const batch = queue.splice(0, max);
    inFlight = batch.length > 0;
    if (inFlight) void send(batch).finally(flush);
  };
  return (id: string, change: SelectionChange) =>
    new Promise<SelectionDto | null>((resolve, reject) => {
      queue.push({ id, change, requestId: currentRequestId(), resolve, reject });
      if (!inFlight) flush();
    });
}

const inContext = <T>(requestId: string | undefined, fn: () => T): T => (requestId ? withRequestContext({ requestId }, fn) : fn());

/** The cart's internal HTTP API, for a deployment where the edge and the cart are separate processes. */
export function createCartHttpClient(baseUrl: string, options: CartHttpClientOptions = {}): CartClient {
  const { json: call, answer } = createInternalCallers(baseUrl, 'cart');
  const found = (selection: SelectionDto | null) => {
    if (!selection) throw new DomainError('CART.SELECTION_NOT_FOUND', 'not_found', { selection: 'not found' });
    return selection;
  };
  const change = changeBatcher(call, answer, options.changeBatch ?? 64);
  return {
    createSelection: async (command: NewSelectionCommand) => (await call<SelectionDto>('POST', '/internal/cart/selections', command))!,
    getSelection: (id) => call<SelectionDto>('GET', `/internal/cart/selections/${encodeURIComponent(id)}`),
    addItem: async (id, command: AddItemCommand) =>
      found(await call<SelectionDto>('POST', `/internal/cart/selections/${encodeURIComponent(id)}/items`, command)),
    changeSelection: async (id, selectionChange: SelectionChange) => found(await change(id, selectionChange)),
    savedSelection: (customerId) => call<SelectionDto>('GET', `/internal/cart/customers/${encodeURIComponent(customerId)}/selection`),
    claimSelection: (customerId, anonymousSelectionId) =>
      call<SelectionDto>('POST', `/internal/cart/customers/${encodeURIComponent(customerId)}/selection/claims`, { anonymousSelectionId }),
    closeSelection: async (id) => {
      await call('POST', `/internal/cart/selections/${encodeURIComponent(id)}/closing`);
    },
  };
}
