import { createInternalCallers, type InternalAnswer, type InternalCall } from '@commerce/shared-internal-client';
import { DomainError } from '@commerce/shared-errors';
import { currentRequestId, withRequestId } from '@commerce/shared-logging';
import type { AddItemCommand, CartClient, NewSelectionCommand, SelectionChange, SelectionDto } from './cart.dto';

/** The path of the cart's batch of selection changes (decision 78). */
export const CART_CHANGES_PATH = '/internal/cart/changes';

/**
 * The path of a batch with new selections in it (decision 184): `{creates: [{command, requestId}], changes: [...]}`,
 * answered `{created: [...], outcomes: [...]}`, each list's outcomes in its order.
 */
export const CART_BATCH_PATH = '/internal/cart/batch';

/** One new selection of a batch (decision 184): the command, and the request id it was made for. */
export interface BatchedCreate {
  command: NewSelectionCommand;
  requestId?: string;
}

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
   * At most this many selection changes and new selections in one internal request (decisions 78, 184; default
   * 64). While a batch is in flight the next queue and go together when it is answered; 1 sends each on its own.
   */
  changeBatch?: number;
  /**
   * Calls of batches in flight at once (decision 184; default 2): one made while fewer are goes at once, the next
   * queue and go together as soon as one is answered. A selection's change never goes while a call in flight
   * holds one of its changes, so they reach the cart in the order they were made.
   */
  callsInFlight?: number;
}

/** A batch's answer: the changes' outcomes, and the new selections' when it had any (decision 184). */
interface BatchAnswer {
  created?: BatchedOutcome[];
  outcomes?: BatchedOutcome[];
}

interface Pending {
  requestId?: string;
  resolve(selection: SelectionDto | null): void;
  reject(error: unknown): void;
}
type Queued = Pending & ({ kind: 'change'; id: string; change: SelectionChange } | { kind: 'create'; command: NewSelectionCommand });

/**
 * Selection changes and new selections sent in batches (decisions 78, 184), natural batching without timers: one
 * made while no batch is in flight goes at once (alone, on its own route); those made while one is in flight queue
 * and go together, in the order they were made, when it is answered. Each gets its own outcome.
 */
function cartBatcher(call: InternalCall, answerOf: InternalAnswer, max: number, callsInFlight: number) {
  const single = (queued: Queued) =>
    queued.kind === 'create'
      ? call<SelectionDto>('POST', '/internal/cart/selections', queued.command)
      : call<SelectionDto>('POST', `/internal/cart/selections/${encodeURIComponent(queued.id)}/changes`, queued.change);
  const queue: Queued[] = [];
  let inFlight = 0;
  /** The selections whose changes are in a call in flight: how many such calls. */
  const busy = new Map<string, number>();
  /** Each alone, as its own request would send it (its request id on the call). */
  const alone = (queued: Queued) => withRequestId(queued.requestId, () => single(queued)).then(queued.resolve, queued.reject);
  const settle = (batch: Queued[], outcomes: BatchedOutcome[]) =>
    batch.forEach((queued, i) => {
      const outcome = outcomes[i];
      try {
        // An answer without this one's outcome is the cart's failure, as a 5xx of its own request would be.
        queued.resolve(outcome && 'ok' in outcome ? outcome.ok : answerOf<SelectionDto>(outcome?.status ?? 502, outcome?.body));
      } catch (error) {
        queued.reject(error);
      }
    });
  const post = (batch: Queued[]): Promise<unknown> => {
    const changes = batch.flatMap((q): BatchedChange[] =>
      q.kind === 'change' ? [{ id: q.id, change: q.change, requestId: q.requestId }] : [],
    );
    const asked = withRequestId(batch[0]!.requestId, () =>
      changes.length === batch.length
        ? call<BatchAnswer>('POST', CART_CHANGES_PATH, { changes })
        : call<BatchAnswer>('POST', CART_BATCH_PATH, {
            creates: batch.flatMap((q): BatchedCreate[] => (q.kind === 'create' ? [{ command: q.command, requestId: q.requestId }] : [])),
            changes,
          }),
    );
    return asked.then(
      (answer) => {
        // A cart without the batch route (a bare 404: nothing applied) takes each on its own route.
        if (!answer) return Promise.all(batch.map(alone)).then(() => undefined);
        settle(
          batch.filter((q) => q.kind === 'create'),
          answer.created ?? [],
        );
        settle(
          batch.filter((q) => q.kind === 'change'),
          answer.outcomes ?? [],
        );
      },
      (error: unknown) => batch.forEach((queued) => queued.reject(error)),
    );
  };
  const send = (batch: Queued[]): Promise<unknown> => (batch.length === 1 ? alone(batch[0]!) : post(batch));
  /**
   * The next batch: the queue's new selections and changes in order, but none of a selection a call in flight
   * changes, nor any after one held back: a selection's changes reach the cart in the order they were made.
   */
  const take = (): Queued[] => {
    const batch: Queued[] = [];
    const held = new Set<string>();
    for (let i = 0; i < queue.length && batch.length < max;) {
      const queued = queue[i]!;
      if (queued.kind === 'change' && (busy.has(queued.id) || held.has(queued.id))) {
        held.add(queued.id);
        i++;
      } else batch.push(...queue.splice(i, 1));
    }
    return batch;
  };
  const hold = (ids: string[], by: number) =>
    ids.forEach((id) => {
      const n = (busy.get(id) ?? 0) + by;
      if (n > 0) busy.set(id, n);
      else busy.delete(id);
    });
  const flush = (): void => {
    while (inFlight < callsInFlight && queue.length > 0) {
      const batch = take();
      if (batch.length === 0) return;
      const ids = batch.flatMap((q) => (q.kind === 'change' ? [q.id] : []));
      inFlight++;
      hold(ids, 1);
      void send(batch).finally(() => {
        inFlight--;
        hold(ids, -1);
        flush();
      });
    }
  };
  const enqueue =
    max <= 1
      ? (queued: Queued) => void alone(queued)
      : (queued: Queued) => {
          queue.push(queued);
          flush();
        };
  const queued = (what: { kind: 'change'; id: string; change: SelectionChange } | { kind: 'create'; command: NewSelectionCommand }) =>
    new Promise<SelectionDto | null>((resolve, reject) => enqueue({ ...what, requestId: currentRequestId(), resolve, reject }));
  return {
    change: (id: string, change: SelectionChange) => queued({ kind: 'change', id, change }),
    create: (command: NewSelectionCommand) => queued({ kind: 'create', command }),
  };
}

/** The cart's internal HTTP API, for a deployment where the edge and the cart are separate processes. */
export function createCartHttpClient(baseUrl: string, options: CartHttpClientOptions = {}): CartClient {
  const { json: call, answer } = createInternalCallers(baseUrl, 'cart');
  const found = (selection: SelectionDto | null) => {
    if (!selection) throw new DomainError('CART.SELECTION_NOT_FOUND', 'not_found', { selection: 'not found' });
    return selection;
  };
  const batcher = cartBatcher(call, answer, options.changeBatch ?? 64, Math.max(1, options.callsInFlight ?? 2));
  return {
    createSelection: async (command: NewSelectionCommand) => (await batcher.create(command))!,
    getSelection: (id) => call<SelectionDto>('GET', `/internal/cart/selections/${encodeURIComponent(id)}`),
    addItem: async (id, command: AddItemCommand) =>
      found(await call<SelectionDto>('POST', `/internal/cart/selections/${encodeURIComponent(id)}/items`, command)),
    changeSelection: async (id, selectionChange: SelectionChange) => found(await batcher.change(id, selectionChange)),
    savedSelection: (customerId) => call<SelectionDto>('GET', `/internal/cart/customers/${encodeURIComponent(customerId)}/selection`),
    claimSelection: (customerId, anonymousSelectionId) =>
      call<SelectionDto>('POST', `/internal/cart/customers/${encodeURIComponent(customerId)}/selection/claims`, { anonymousSelectionId }),
    closeSelection: async (id) => {
      await call('POST', `/internal/cart/selections/${encodeURIComponent(id)}/closing`);
    },
  };
}
