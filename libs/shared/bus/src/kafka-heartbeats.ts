// A running handler's heartbeats and its time limit (decisions 75 and 76): kafkajs heartbeats only between
// messages, so the Kafka bus (kafka-bus.ts) runs each handler inside withHeartbeats.

/**
 * A handler ran past its subscription's `handlerTimeoutMs`. Thrown out of kafkajs's eachMessage/eachBatch,
 * where, not retriable, it crashes the consumer: kafkajs stops it and leaves the group, so the partitions go
 * to another member; the subscription then starts a new consumer in the group (decision 76).
 */
export class HandlerTimeoutError extends Error {
  /** kafkajs's retrier gives up on it at once instead of calling the handler again in the same member. */
  readonly retriable = false;
  /** With `times`, the reason of a dead letter: the event's handler timed out that many times (decision 85). */
  constructor(
    readonly timeoutMs: number,
    readonly times?: number,
  ) {
    super(
      times === undefined
        ? `event handler still running after ${timeoutMs} ms: given up, its consumer leaves the group`
        : `event handler timed out ${times} times on this event (${timeoutMs} ms each): dead-lettered`,
    );
    this.name = 'HandlerTimeoutError';
  }
}

/** Errors that mean the member must rejoin its group (kafkajs rejoins when one leaves eachBatch/eachMessage). */
const MEMBERSHIP_ERRORS = new Set(['REBALANCE_IN_PROGRESS', 'NOT_COORDINATOR_FOR_GROUP', 'ILLEGAL_GENERATION', 'UNKNOWN_MEMBER_ID']);
const isMembershipError = (error: unknown): boolean => MEMBERSHIP_ERRORS.has((error as { type?: string } | undefined)?.type ?? '');

export interface Heartbeats {
  /**
   * Runs `work`, heartbeating meanwhile; the heartbeats stop when it settles (the last one awaited), or when
   * it outlasts the time limit: then it is given up (whatever it settles to later is dropped) and
   * `during` rejects with HandlerTimeoutError, which `throwIfLost` throws from then on.
   */
  during<T>(work: () => Promise<T>): Promise<T>;
  /**
   * Throws the membership error a heartbeat met, if any, else `error` if it is one itself (a commit of a
   * member the group no longer counts); returns otherwise.
   */
  throwIfLost(error?: unknown): void;
}

/**
 * kafkajs heartbeats only when `heartbeat()` is called, between messages or runs: a handler that outlasts
 * the session timeout gets its member evicted, its partitions handed over and its work done again. So a
 * running handler calls it every `intervalMs` (cheap: kafkajs sends one only when due). A failure is
 * caught, never left unhandled: a membership error (a rebalance) stops the beats and is thrown by
 * `throwIfLost` once the handler is done; another (a timeout on a loaded broker) is told to `onFailure`
 * and the beats go on. So a handler that hangs would keep its partition instead of being evicted (decision
 * 75): past `timeoutMs` it is given up, as a lost membership is (decision 76).
 */
export function withHeartbeats(
  heartbeat: () => Promise<void>,
  intervalMs: number,
  stopping: () => boolean,
  onFailure: (error: unknown) => void,
  timeoutMs = Number.POSITIVE_INFINITY,
): Heartbeats {
  let lost: unknown;
  return {
    async during(work) {
      let inFlight: Promise<void> | undefined;
      let limit: NodeJS.Timeout | undefined;
      const timer = setInterval(() => {
        if (inFlight || lost !== undefined || stopping()) return;
        inFlight = heartbeat()
          .catch((error: unknown) => {
            if (isMembershipError(error)) lost = error;
            else onFailure(error);
          })
          .finally(() => (inFlight = undefined));
      }, intervalMs);
      try {
        const running = work();
        if (!Number.isFinite(timeoutMs)) return await running;
        const expired = new Promise<never>((_, reject) => {
          limit = setTimeout(() => reject((lost = new HandlerTimeoutError(timeoutMs))), timeoutMs);
        });
        // A given-up handler that fails later is not an unhandled rejection.
        running.catch(() => undefined);
        return await Promise.race([running, expired]);
      } finally {
        clearTimeout(limit);
        clearInterval(timer);
        await inFlight;
      }
    },
    throwIfLost(error) {
      if (lost !== undefined) throw lost;
      if (error !== undefined && isMembershipError(error)) throw error;
    },
  };
}
