import { ProductUpserted } from '@commerce/catalog-contracts';
import type { CatalogEvent } from './catalog.repository';
import type { ProductKey } from './products.repository';

/** The outcome of applying a size, pricelist, market, warehouse or delivery window. */
export interface ApplyEntityResult {
  /** False when the upsert changed nothing: no event then. */
  changed: boolean;
  /** Products published again (`ProductUpserted`) because what they show changed. */
  affectedProducts: number;
}

/** Decision 12: a field the ERP leaves out (absent or empty) keeps its value. */
export const pick = <T>(given: T | undefined, existing: T | undefined, fallback: T): T =>
  given !== undefined && given !== '' ? given : (existing ?? fallback);

export const isYes = (value: string): boolean => ['1', 'true', 'yes'].includes(value.trim().toLowerCase());

/** Structural equality of plain data (key order ignored: a row loaded from the store lists its keys in another order). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** One `ProductUpserted` per product (the indexer re-reads each), in id order. */
export function productUpsertedEvents(products: Iterable<ProductKey>): CatalogEvent[] {
  const byId = new Map<number, ProductKey>();
  for (const p of products) byId.set(p.id, p);
  return [...byId.values()]
    .sort((a, b) => a.id - b.id)
    .map((p) => ProductUpserted.create(String(p.id), { productId: String(p.id), externalId: p.externalId }));
}

/** Collects field errors of one entity, so a bad one fails with every bad field named. */
export class FieldErrors {
  readonly fields: Record<string, string> = {};
  add(path: string, message: string): void {
    this.fields[path] ??= message;
  }
  get any(): boolean {
    return Object.keys(this.fields).length > 0;
  }

  /** A whole number ≥ min, or undefined when left out. */
  wholeNumber(path: string, value: string | undefined, min = 0): number | undefined {
    if (value === undefined || value.trim() === '') return undefined;
    const n = Number(value.trim());
    if (!Number.isInteger(n) || n < min) {
      this.add(path, min > 0 ? `must be a whole number of at least ${min}` : 'must be a whole number');
      return undefined;
    }
    return n;
  }

  /** An ISO 8601 date or `YYYY-MM-DD[ HH:MM[:SS]]` (UTC when no offset), or undefined/null. */
  date(path: string, value: string | undefined, endOfDay: boolean): string | null | undefined {
    if (value === undefined) return undefined;
    const text = value.trim();
    if (text === '') return null;
    const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(text);
    const local = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(text);
    const ms = dateOnly
      ? Date.parse(`${text}T${endOfDay ? '23:59:59.999' : '00:00:00.000'}Z`)
      : Date.parse(local ? `${text.replace(' ', 'T')}Z` : text);
    if (!Number.isFinite(ms)) {
      this.add(path, 'must be a date (YYYY-MM-DD or ISO 8601)');
      return undefined;
    }
    return new Date(ms).toISOString();
  }
}
