import { createInternalCaller } from '@commerce/shared-internal-client';
import { DomainError } from '@commerce/shared-errors';
import type { AddItemCommand, CartClient, NewSelectionCommand, SelectionChange, SelectionDto } from './cart.dto';

/** The cart's internal HTTP API, for a deployment where the edge and the cart are separate processes. */
export function createCartHttpClient(baseUrl: string): CartClient {
  const call = createInternalCaller(baseUrl, 'cart');
  const found = (selection: SelectionDto | null) => {
    if (!selection) throw new DomainError('CART.SELECTION_NOT_FOUND', 'not_found', { selection: 'not found' });
    return selection;
  };
  return {
    createSelection: async (command: NewSelectionCommand) => (await call<SelectionDto>('POST', '/internal/cart/selections', command))!,
    getSelection: (id) => call<SelectionDto>('GET', `/internal/cart/selections/${encodeURIComponent(id)}`),
    addItem: async (id, command: AddItemCommand) =>
      found(await call<SelectionDto>('POST', `/internal/cart/selections/${encodeURIComponent(id)}/items`, command)),
    changeSelection: async (id, change: SelectionChange) =>
      found(await call<SelectionDto>('POST', `/internal/cart/selections/${encodeURIComponent(id)}/changes`, change)),
    savedSelection: (customerId) => call<SelectionDto>('GET', `/internal/cart/customers/${encodeURIComponent(customerId)}/selection`),
    claimSelection: (customerId, anonymousSelectionId) =>
      call<SelectionDto>('POST', `/internal/cart/customers/${encodeURIComponent(customerId)}/selection/claims`, { anonymousSelectionId }),
    closeSelection: async (id) => {
      await call('POST', `/internal/cart/selections/${encodeURIComponent(id)}/closing`);
    },
  };
}
