import type { Product } from './product';

/** A product as an apply wrote it, and the id of the `ProductUpserted` event recorded with it. */
export interface AppliedProduct {
  eventId: string;
  product: Product;
}

export interface AppliedProductsOptions {
  /** Entries kept at most (default 50,000); the oldest go first. */
  maxEntries?: number;
  /** How long an entry waits for its event (default one minute): another replica may index it. */
  ttlMs?: number;
  now?: () => number;
}

/**
 * Products this process's upsert consumer has just committed, by the id of the `ProductUpserted` event
 * that was committed with them, until the indexer hears that event (decision 64). The indexer then
 * indexes that state instead of reading the product, its variants, items and stock back from the store:
 * the event was recorded in the same transaction, so it names exactly that state, and a later change of
 * the product comes with a later event of its own, which is read from the store as before. An event
 * nobody takes here (another replica indexes it, or the consumer fell back to one event at a time and
 * the entry aged out) is read back: the entries are only a shortcut.
 */
export class AppliedProducts {
  private readonly entries = new Map<string, { product: Product; at: number }>();
  private readonly maxEntries: number;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(options: AppliedProductsOptions = {}) {
    this.maxEntries = options.maxEntries ?? 50_000;
    this.ttlMs = options.ttlMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  /** Call only once the transaction that wrote them committed. */
  remember(applied: AppliedProduct[]): void {
    const at = this.now();
    for (const { eventId, product } of applied) this.entries.set(eventId, { product, at });
    // Oldest first (insertion order): drop the aged and those over the bound.
    for (const [eventId, entry] of this.entries) {
      if (this.entries.size <= this.maxEntries && at - entry.at <= this.ttlMs) break;
      this.entries.delete(eventId);
    }
  }

  /** The product committed with this event, once: null when this process did not apply it (or forgot it). */
  take(eventId: string): Product | null {
    const entry = this.entries.get(eventId);
    if (!entry) return null;
    this.entries.delete(eventId);
    return this.now() - entry.at <= this.ttlMs ? entry.product : null;
  }

  get size(): number {
    return this.entries.size;
  }
}
