/** One line of an attempt's stock hold. */
export interface StockLine {
  item: string;
  quantity: number;
}

/** An item that cannot be held as asked (spec: Unavailable entry; unavailable + available = originalQuantity). */
export interface UnavailableEntry {
  item: string;
  product: string;
  originalQuantity: number;
  unavailable: number;
  available: number;
}

export interface HoldStockCommand {
  /** The payment attempt holding the stock; holding it again answers the first hold. */
  attemptId: string;
  /** The selection paid: a new hold for it releases the older attempts' holds. */
  selectionId: string;
  lines: StockLine[];
  /** How long the hold lasts unless the order is placed first. */
  ttlSeconds: number;
}

export type HoldStockResult = { held: true } | { held: false; unavailable: UnavailableEntry[] };

/**
 * A commit: how many holds it turned into decrements (0 when already committed or there are none), or,
 * when the stock of a hold no longer live (expired, replaced) is no longer there, nothing taken and what
 * is missing. Such a hold is lost for good: every later commit of the attempt answers the same entries.
 */
export type CommitStockResult = { committed: number; unavailable?: undefined } | { committed: 0; unavailable: UnavailableEntry[] };

/**
 * The catalog's stock questions of the checkout saga (DESIGN §2): hold the items of a started payment,
 * release a hold given up, and turn the hold into a decrement once the order is placed (exactly once).
 */
export interface StockClient {
  holdStock(command: HoldStockCommand): Promise<HoldStockResult>;
  /** Releases the attempt's holds still held; no-op otherwise. */
  releaseStock(attemptId: string): Promise<void>;
  /**
   * Decrements the stock of the attempt's holds not yet committed, once however often it is called, if it
   * is there: stock − the other attempts' live holds must cover each hold (preorder and open delivery
   * windows are not limited). Otherwise nothing is taken and the hold is lost (`unavailable`). Never below 0.
   */
  commitStock(attemptId: string): Promise<CommitStockResult>;
}
