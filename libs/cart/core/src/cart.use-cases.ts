import { randomBytes, randomUUID } from 'node:crypto';
import type { CurrencyFormat } from '@commerce/shared-config';
import type { AddItemCommand, CartClient, NewSelectionCommand, SelectionDto } from '@commerce/cart-contracts';
import { InvalidQuantityError, SelectionNotFoundError } from './cart.errors';
import { toSelectionDto, type Selection } from './selection';
import type { SelectionRepository } from './selection.repository';

export interface CartDeps {
  selections: SelectionRepository;
  currencyFormat(currency: string): CurrencyFormat;
}

export const MAX_LINE_QUANTITY = 10_000;

export async function createSelection(deps: CartDeps, command: NewSelectionCommand): Promise<SelectionDto> {
  const selection: Selection = {
    id: randomUUID(),
    status: 'open',
    currency: command.currency,
    country: command.country,
    state: null,
    language: command.language,
    paymentMethod: '',
    lines: [],
  };
  await deps.selections.create(selection);
  return toSelectionDto(selection, deps.currencyFormat);
}

export async function getSelection(deps: CartDeps, selectionId: string): Promise<SelectionDto | null> {
  const selection = await deps.selections.findOpen(selectionId);
  return selection ? toSelectionDto(selection, deps.currencyFormat) : null;
}

export async function addItem(deps: CartDeps, selectionId: string, command: AddItemCommand): Promise<SelectionDto> {
  if (!Number.isInteger(command.quantity) || command.quantity < 1 || command.quantity > MAX_LINE_QUANTITY) {
    throw new InvalidQuantityError(MAX_LINE_QUANTITY);
  }
  const added = await deps.selections.addLine(selectionId, {
    line: randomBytes(8).toString('hex'),
    item: command.item,
    product: command.product,
    size: command.size,
    sku: command.sku,
    ean: command.ean,
    productName: command.productName,
    brandName: command.brandName,
    quantity: command.quantity,
    priceEach: command.priceEachAsNumber,
  });
  if (!added) throw new SelectionNotFoundError();
  const selection = await deps.selections.findOpen(selectionId);
  if (!selection) throw new SelectionNotFoundError();
  return toSelectionDto(selection, deps.currencyFormat);
}

/** The cart's use cases as the typed client the edge calls in the all-in-one. */
export function cartUseCases(deps: CartDeps): CartClient {
  return {
    createSelection: (command) => createSelection(deps, command),
    getSelection: (id) => getSelection(deps, id),
    addItem: (id, command) => addItem(deps, id, command),
  };
}
