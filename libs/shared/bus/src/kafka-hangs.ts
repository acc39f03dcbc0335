import { retryDelayMs } from './envelope-codec';

/** What a subscription remembers of its handlers' time-outs at most (oldest forgotten first). */
const MAX_REMEMBERED = 1000;

/**
 * A subscription's record of handler time-outs (decision 85). A handler that hangs on every attempt would
 * otherwise have its consumer replaced after each time-out, for ever (decision 76): the partition stuck, the
 * group churning. So:
 * - the time-outs of one event (topic, partition, offset) are counted; the `limit`-th says to dead-letter it,
 *   so its partition moves on;
 * - a run of `handleBatch` that timed out is remembered by its first event, so that it is handled one by one
 *   next time: the event that hangs is then found and counted on its own (a run's time-out says nothing of
 *   which of its events hung, and never dead-letters the run);
 * - the consumers started after time-outs back off: 1 s, 2 s, 4 s … 60 s, from the first time-out since a
 *   handler last settled.
 * Counted in the process: a partition that goes to another process starts its count there afresh.
 */
export class HandlerHangs {
  private readonly timeouts = new Map<string, number>();
  private readonly runs = new Set<string>();
  private restartsInARow = 0;

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1)
      throw new Error(`event bus: the time-outs before a dead letter must be a whole number ≥ 1, not ${limit}`);
  }

  /**
   * Records a time-out of the event at `key`: its count, and whether it reached the limit (then it is forgotten).
   * Below the limit, a run of `handleBatch` that begins with it is handled one by one next time too.
   */
  timedOut(key: string): { count: number; deadLetter: boolean } {
    const count = (this.timeouts.get(key) ?? 0) + 1;
    this.timeouts.delete(key);
    if (count >= this.limit) return { count, deadLetter: true };
    this.timeouts.set(key, count);
    this.forgetOldest(this.timeouts);
    this.runTimedOut(key);
    return { count, deadLetter: false };
  }

  /**
   * A handler settled (the event at `offset` of a partition was committed, handled or dead-lettered): its
   * time-outs are forgotten. Every commit calls it, so the event's key is made only when some time-out is counted.
   */
  settled(topic: string, partition: number, offset: string): void {
    this.restartsInARow = 0;
    if (this.timeouts.size > 0) this.timeouts.delete(eventKey(topic, partition, offset));
  }

  /** A run of `handleBatch` beginning at `key` timed out. */
  runTimedOut(key: string): void {
    this.runs.add(key);
    this.forgetOldest(this.runs);
  }

  /** Whether the run beginning at `key` timed out before (then it is to be handled one by one); forgets it. */
  takeTimedOutRun(key: string): boolean {
    return this.runs.size > 0 && this.runs.delete(key);
  }

  /** How long to wait before the next consumer starts after a time-out: growing while no handler settles. */
  nextRestartDelayMs(): number {
    this.restartsInARow++;
    return retryDelayMs(this.restartsInARow, 1000, 60_000);
  }

  private forgetOldest(entries: Map<string, number> | Set<string>): void {
    if (entries.size > MAX_REMEMBERED) entries.delete(entries.keys().next().value as string);
  }
}

/** The key of an event in `HandlerHangs`. */
export const eventKey = (topic: string, partition: number, offset: string): string => `${topic}\u0000${partition}\u0000${offset}`;
