/** What the edge keeps under a token (DESIGN §1: session tokens in Redis). */
export interface CheckoutSession {
  /** Open selection in `cart`, created on the first item. */
  selectionId?: string;
  /** The customer logged in on this token (register, login); absent: anonymous. */
  customerId?: string;
  /** The customer's `sessionEpoch` at login: a password reset raises it, and this session is then logged out. */
  sessionEpoch?: number;
  /**
   * A logged-in B2B buyer's own market and pricelist (the pricelist with its currency), read at login (decision
   * 46): prices, visibility and the currency follow them instead of the country's. Logout drops them.
   */
  buyer?: BuyerPricing;
  country: string | null;
  state: string | null;
  language: string;
  createdAt: string;
  /** The payment attempt last started on this token (`POST payment`); a payment result must be this one's. */
  paymentAttemptId?: string;
  /** The order last placed under this token, for `GET receipt`. */
  lastOrderId?: string;
}

/** What a buyer is priced in besides its country; `currency` is set exactly when `pricelist` is (the pricelist's). */
export interface BuyerPricing {
  market?: string;
  pricelist?: string;
  currency?: string;
}

/** Port: the session store, by token, with a sliding TTL (Redis or in memory). */
export interface SessionPort {
  get(token: string): Promise<CheckoutSession | null>;
  /**
   * The session and, read in the same round trip, the version of the selection it names (`selectionVersion`),
   * null without one. Optional: `openSession` falls back to `get`.
   */
  getWithVersion?(token: string): Promise<{ session: CheckoutSession | null; selectionVersion: number | null }>;
  set(token: string, session: CheckoutSession): Promise<void>;
  delete(token: string): Promise<void>;
  /** A new token; it carries the country its fresh session starts in (decision 134). */
  newToken(country?: string | null): string;
  /**
   * The country a token was minted with, when the store minted it less than its TTL ago (else null): a token a read
   * handed out, its session not stored yet, is the same fresh session when it comes back.
   */
  minted?(token: string): { country: string | null } | null;
  /**
   * How many changes the edge has made to a selection (through any token and any replica: the count lives
   * beside the sessions). The edge raises it after every change it asks the cart for, so an answer
   * rendered from the selection as read after the count showed n is never older than the n-th change.
   */
  selectionVersion(selectionId: string): Promise<number>;
  /** Raises the count; answers the raised count where the store tells it (the edge's answer cache keeps a change's answer under it). */
  selectionChanged(selectionId: string): Promise<number | void>;
}
