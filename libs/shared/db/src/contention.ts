/**
 * Contended transactions (DESIGN §8): Postgres gives up one of two transactions that wait on each other
 * (deadlock, 40P01) or that cannot be serialized (40001). Neither is a fault of the request: the same
 * transaction run again succeeds. `retryContended` runs it again, a bounded number of times with full
 * jittered exponential backoff, and lets every other error through at once. It belongs inside the
 * repository that owns the transaction (the whole transaction is the unit retried), never around a
 * request: a retried transaction must redo all its reads.
 */

/** SQLSTATEs of a transaction Postgres rolled back for contention alone. */
export const CONTENTION_SQLSTATES: ReadonlySet<string> = new Set(['40P01', '40001']);

/** True for a deadlock or a serialization failure (pg puts the SQLSTATE on `code`). */
export function isContention(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && CONTENTION_SQLSTATES.has(code);
}

/** True for a unique violation (SQLSTATE 23505): the row's key is taken, on Postgres and PGlite alike. */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '23505';
}

export interface ContentionRetryOptions {
  /** Runs in all, the first included (default 6). */
  attempts?: number;
  /** The first backoff's ceiling (default 5 ms); doubled each run, never above `maxDelayMs`. */
  baseDelayMs?: number;
  /** The ceiling of one backoff (default 200 ms). */
  maxDelayMs?: number;
  /** For tests: [0, 1) and the wait. */
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** Told of each retry (a log line, a counter). */
  onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
}

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const retried = new Map<string, number>();
/** The transactions run again so far in this process, by SQLSTATE: `/metrics`' `db_contention_retries_total`. */
export const contentionRetries = (): ReadonlyMap<string, number> => retried;

/**
 * `run()` again while it fails for contention, at most `attempts` runs, waiting a random time in
 * [0, min(maxDelayMs, baseDelayMs·2^(n−1))) before run n+1 (full jitter: two losers do not meet again in
 * step). The last contention error is thrown when the runs are spent.
 */
export async function retryContended<T>(run: () => Promise<T>, options: ContentionRetryOptions = {}): Promise<T> {
  const attempts = Math.max(1, options.attempts ?? 6);
  const base = options.baseDelayMs ?? 5;
  const max = options.maxDelayMs ?? 200;
  const random = options.random ?? Math.random;
  const sleep = options.sleep ?? wait;
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (!isContention(error) || attempt >= attempts) throw error;
      const delayMs = Math.floor(random() * Math.min(max, base * 2 ** (attempt - 1)));
      const code = (error as { code: string }).code;
      retried.set(code, (retried.get(code) ?? 0) + 1);
      options.onRetry?.(error, attempt, delayMs);
      await sleep(delayMs);
    }
  }
}
