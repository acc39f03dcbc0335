import { Agent, request } from 'undici';
import { currentRequestId, REQUEST_ID_HEADER } from '@commerce/shared-logging';
import { DomainError } from '@commerce/shared-errors';
import type { AddItemCommand, CartClient, NewSelectionCommand, SelectionDto } from './cart.dto';

/** The cart's internal HTTP API, for a deployment where the edge and the cart are separate processes. */
export function createCartHttpClient(baseUrl: string): CartClient {
  const agent = new Agent({ keepAliveTimeout: 30_000, connections: 64 });
  const call = async <T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T | null> => {
    const requestId = currentRequestId();
    const res = await request(new URL(path, baseUrl), {
      method,
      dispatcher: agent,
      headers: { 'content-type': 'application/json', ...(requestId ? { [REQUEST_ID_HEADER]: requestId } : {}) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json = (await res.body.json()) as T & { errors?: Record<string, string> };
    if (res.statusCode === 404) return null;
    if (res.statusCode >= 400)
      throw new DomainError(
        'CART.REMOTE_ERROR',
        res.statusCode === 503 ? 'unavailable' : 'invalid',
        json.errors ?? { cart: `answered ${res.statusCode}` },
      );
    return json;
  };
  return {
    createSelection: async (command: NewSelectionCommand) => (await call<SelectionDto>('POST', '/internal/cart/selections', command))!,
    getSelection: (id) => call<SelectionDto>('GET', `/internal/cart/selections/${encodeURIComponent(id)}`),
    addItem: async (id, command: AddItemCommand) => {
      const selection = await call<SelectionDto>('POST', `/internal/cart/selections/${encodeURIComponent(id)}/items`, command);
      if (!selection) throw new DomainError('CART.SELECTION_NOT_FOUND', 'not_found', { selection: 'not found' });
      return selection;
    },
  };
}
