import { randomBytes, randomUUID } from 'node:crypto';
import type {
  AddItemCommand,
  CartClient,
  LineItemData,
  LineOperation,
  NewSelectionCommand,
  SelectionChange,
  SelectionDto,
} from '@commerce/cart-contracts';
import { InvalidQuantityError, LineNotFoundError, QuantityRuleError, SelectionNotFoundError } from './cart.errors';
import { toSelectionDto, type Selection, type SelectionLine } from './selection';
import type { SelectionRepository } from './selection.repository';

export interface CartDeps {
  selections: SelectionRepository;
}

export const MAX_LINE_QUANTITY = 10_000;

/** The new selection a command makes, with its first change applied (decision 157): a refused change throws. */
function newSelection(command: NewSelectionCommand): Selection {
  const empty: Selection = {
    id: randomUUID(),
    status: 'open',
    currency: command.currency,
    country: command.country,
    state: null,
    language: command.language,
    paymentMethod: '',
    shippingMethod: '',
    vouchers: [],
    paymentFields: {},
    lines: [],
  };
  return command.change ? applyChange(empty, command.change) : empty;
}

export async function createSelection(deps: CartDeps, command: NewSelectionCommand): Promise<SelectionDto> {
  // The first change made with the selection (decision 157): a refused one throws before anything is written.
  const selection = newSelection(command);
  if (!(await deps.selections.create(selection, command.customerId))) {
    // The customer's saved selection was made meanwhile (another device): that one is the customer's.
    const saved = await savedSelection(deps, command.customerId!);
    if (saved) return command.change ? changeSelection(deps, saved.id, command.change) : saved;
    throw new SelectionNotFoundError();
  }
  return toSelectionDto(selection);
}

/**
 * Several new selections, each with the outcome `createSelection` gives it (decision 184): the anonymous ones
 * whose first change is accepted are written together in one statement (each on its own when that statement
 * fails: nothing of it was written); a customer's goes as `createSelection` (its saved selection may be there).
 */
export async function createSelections(
  deps: CartDeps,
  commands: NewSelectionCommand[],
): Promise<Array<PromiseSettledResult<SelectionDto>>> {
  const outcomes: Array<Promise<SelectionDto>> = [];
  const made: Array<{ index: number; selection: Selection }> = [];
  commands.forEach((command, index) => {
    if (command.customerId) outcomes[index] = createSelection(deps, command);
    else
      try {
        made.push({ index, selection: newSelection(command) });
      } catch (error) {
        outcomes[index] = Promise.reject(error);
      }
  });
  const together =
    made.length > 1
      ? deps.selections.createMany(made.map((m) => m.selection)).then(
          () => true,
          () => false,
        )
      : Promise.resolve(false);
  for (const { index, selection } of made)
    outcomes[index] = together.then(async (written) => {
      if (!written) await deps.selections.create(selection);
      return toSelectionDto(selection);
    });
  return Promise.allSettled(outcomes);
}

export async function getSelection(deps: CartDeps, selectionId: string): Promise<SelectionDto | null> {
  const selection = await deps.selections.findOpen(selectionId);
  return selection ? toSelectionDto(selection) : null;
}

const assertWhole = (n: number, min: number) => {
  if (!Number.isInteger(n) || n < min || n > MAX_LINE_QUANTITY) throw new InvalidQuantityError(MAX_LINE_QUANTITY);
};

/** A new line id: 8 random bytes in hex, cut from a pool filled 4 KB at a time (one CSPRNG call per 512 ids). */
let linePool = Buffer.alloc(0);
let lineOffset = 0;
const newLineId = (): string => {
  if (lineOffset + 8 > linePool.length) {
    linePool = randomBytes(4096);
    lineOffset = 0;
  }
  lineOffset += 8;
  return linePool.toString('hex', lineOffset - 8, lineOffset);
};

const lineOf = (item: LineItemData, quantity: number): SelectionLine => ({
  line: newLineId(),
  item: item.item,
  product: item.product,
  size: item.size,
  sku: item.sku,
  ean: item.ean,
  productName: item.productName,
  brandName: item.brandName,
  quantity,
  priceEachMinor: item.priceEachMinor,
  priceEachBeforeDiscountMinor: Math.max(item.priceEachBeforeDiscountMinor ?? item.priceEachMinor, item.priceEachMinor),
  quantityMinimum: Math.max(1, item.quantityMinimum ?? 1),
  quantityMultipleOf: Math.max(1, item.quantityMultipleOf ?? 1),
  ...(item.external ? { external: item.external } : {}),
});

/** The item's latest catalog data on its line (price and quantity rules as of this add). */
const refreshed = (line: SelectionLine, item: LineItemData, quantity: number): SelectionLine => ({
  ...lineOf(item, quantity),
  line: line.line,
});

/** One line operation on the lines; quantities reaching 0 remove the line. */
function applyLineOperation(lines: SelectionLine[], op: LineOperation): SelectionLine[] {
  switch (op.op) {
    case 'addItem':
    case 'setItem': {
      assertWhole(op.quantity, op.op === 'addItem' ? 1 : 0);
      const existing = lines.find((l) => l.item === op.item.item);
      const quantity = op.op === 'addItem' ? (existing?.quantity ?? 0) + op.quantity : op.quantity;
      if (quantity === 0) return lines.filter((l) => l !== existing);
      if (!existing) return [...lines, lineOf(op.item, quantity)];
      return lines.map((l) => (l === existing ? refreshed(l, op.item, quantity) : l));
    }
    case 'addLine':
    case 'setLine':
    case 'removeLine': {
      const existing = lines.find((l) => l.line === op.line);
      if (!existing) throw new LineNotFoundError();
      if (op.op === 'removeLine') return lines.filter((l) => l !== existing);
      if (op.op === 'addLine' && (!Number.isInteger(op.quantity) || op.quantity === 0 || Math.abs(op.quantity) > MAX_LINE_QUANTITY))
        throw new InvalidQuantityError(MAX_LINE_QUANTITY);
      if (op.op === 'setLine') assertWhole(op.quantity, 0);
      const quantity = Math.max(0, op.op === 'addLine' ? existing.quantity + op.quantity : op.quantity);
      if (quantity === 0) return lines.filter((l) => l !== existing);
      return lines.map((l) => (l === existing ? { ...l, quantity } : l));
    }
  }
}

/** itemQuantityMinimum and itemQuantityMultipleOf, checked on the quantities a change leaves. */
function assertQuantityRules(before: SelectionLine[], after: SelectionLine[]) {
  for (const line of after) {
    const old = before.find((l) => l.line === line.line);
    if (old && old.quantity === line.quantity && old.quantityMinimum === line.quantityMinimum) continue;
    if (line.quantity > MAX_LINE_QUANTITY) throw new InvalidQuantityError(MAX_LINE_QUANTITY);
    if (line.quantity < line.quantityMinimum)
      throw new QuantityRuleError(`item ${line.item} can be bought ${line.quantityMinimum} or more at a time`);
    if (line.quantity % line.quantityMultipleOf !== 0)
      throw new QuantityRuleError(`item ${line.item} is sold in multiples of ${line.quantityMultipleOf}`);
  }
}

/** The selection after a change: lines first, then removals and new prices, then the selection's own fields. */
export function applyChange(selection: Selection, change: SelectionChange): Selection {
  let lines = selection.lines;
  for (const op of change.lines ?? []) lines = applyLineOperation(lines, op);
  assertQuantityRules(selection.lines, lines);
  const removed = new Set(change.removeLines ?? []);
  const prices = new Map((change.prices ?? []).map((p) => [p.line, p]));
  lines = lines
    .filter((l) => !removed.has(l.line))
    .map((l) => {
      const price = prices.get(l.line);
      if (!price) return l;
      const before = Math.max(price.priceEachBeforeDiscountMinor ?? price.priceEachMinor, price.priceEachMinor);
      return { ...l, priceEachMinor: price.priceEachMinor, priceEachBeforeDiscountMinor: before };
    });
  const set = Object.fromEntries(Object.entries(change.set ?? {}).filter(([, v]) => v !== undefined));
  const next: Selection = { ...selection, ...set, lines };
  const { addVoucher, removeVoucher, mergePaymentFields } = change;
  if (addVoucher && !next.vouchers.some((v) => v.toUpperCase() === addVoucher.toUpperCase()))
    next.vouchers = [...next.vouchers, addVoucher];
  if (removeVoucher) next.vouchers = next.vouchers.filter((v) => v.toUpperCase() !== removeVoucher.toUpperCase());
  if (mergePaymentFields) next.paymentFields = { ...next.paymentFields, ...mergePaymentFields };
  return next;
}

export async function changeSelection(deps: CartDeps, selectionId: string, change: SelectionChange): Promise<SelectionDto> {
  const changed = await deps.selections.update(selectionId, (selection) => applyChange(selection, change));
  if (!changed) throw new SelectionNotFoundError();
  return toSelectionDto(changed);
}

/** Several changes, each its own outcome (decision 78): an unknown selection's is SelectionNotFoundError. */
export async function changeSelections(
  deps: CartDeps,
  changes: Array<{ id: string; change: SelectionChange }>,
): Promise<Array<PromiseSettledResult<SelectionDto>>> {
  const settled = await deps.selections.updateMany(
    changes.map(({ id, change }) => ({ id, change: (s: Selection) => applyChange(s, change) })),
  );
  return settled.map((outcome): PromiseSettledResult<SelectionDto> => {
    if (outcome.status === 'rejected') return outcome;
    if (!outcome.value) return { status: 'rejected', reason: new SelectionNotFoundError() };
    return { status: 'fulfilled', value: toSelectionDto(outcome.value) };
  });
}

export async function addItem(deps: CartDeps, selectionId: string, command: AddItemCommand): Promise<SelectionDto> {
  const { quantity, ...item } = command;
  return changeSelection(deps, selectionId, { lines: [{ op: 'addItem', item, quantity }] });
}

export async function savedSelection(deps: CartDeps, customerId: string): Promise<SelectionDto | null> {
  const id = await deps.selections.findSavedId(customerId);
  return id ? getSelection(deps, id) : null;
}

/**
 * The anonymous selection's lines added to the saved one: an item on both adds up (the anonymous line's
 * data, priced more recently, wins; at most MAX_LINE_QUANTITY), other lines come after the saved ones.
 */
export function mergeLines(saved: Selection, anonymous: Selection): Selection {
  const lines = saved.lines.map((l) => ({ ...l }));
  for (const line of anonymous.lines) {
    const index = lines.findIndex((l) => l.item === line.item);
    if (index < 0) lines.push({ ...line });
    else
      lines[index] = { ...line, line: lines[index]!.line, quantity: Math.min(MAX_LINE_QUANTITY, lines[index]!.quantity + line.quantity) };
  }
  const vouchers = [
    ...saved.vouchers,
    ...anonymous.vouchers.filter((v) => !saved.vouchers.some((s) => s.toUpperCase() === v.toUpperCase())),
  ];
  return { ...saved, lines, vouchers };
}

export async function claimSelection(deps: CartDeps, customerId: string, anonymousId: string | null): Promise<SelectionDto | null> {
  const claimed = await deps.selections.claim(customerId, anonymousId, mergeLines);
  return claimed ? toSelectionDto(claimed) : null;
}

/** The cart's use cases as the typed client the edge calls in the all-in-one. */
export function cartUseCases(deps: CartDeps): CartClient {
  return {
    createSelection: (command) => createSelection(deps, command),
    createSelections: (commands) => createSelections(deps, commands),
    getSelection: (id) => getSelection(deps, id),
    addItem: (id, command) => addItem(deps, id, command),
    changeSelection: (id, change) => changeSelection(deps, id, change),
    changeSelections: (changes) => changeSelections(deps, changes),
    savedSelection: (customerId) => savedSelection(deps, customerId),
    claimSelection: (customerId, anonymousId) => claimSelection(deps, customerId, anonymousId),
    closeSelection: async (id) => {
      await deps.selections.close(id);
    },
  };
}
