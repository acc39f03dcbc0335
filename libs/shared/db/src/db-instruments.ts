/**
 * What a process's SQL engines tell its `/metrics` (issue 28): every statement sent (`db_statements_total`) and how
 * long each wait for a pooled Postgres connection took (`db_pool_acquire_seconds`). One observer a process, set
 * by the process's metrics registry; none, nothing is measured.
 */
export interface DbObserver {
  /** A statement went to the engine (knex's, a transaction's BEGIN and COMMIT, a `Db.query`). */
  statement(): void;
  /** A statement or transaction had a connection after waiting this long (0: one was at hand). */
  acquired(waitSeconds: number): void;
}

let observer: DbObserver | undefined;

/** Sets (or, with undefined, clears) the process's observer of its SQL engines. */
export function observeDb(next: DbObserver | undefined): void {
  observer = next;
}

/** The observer now set, read at each event (so an engine opened before the registry is measured too). */
export const dbObserver = (): DbObserver | undefined => observer;

/** `acquire()` timed for the observer: a connection at hand (not a promise) counts as no wait. */
export function timedAcquire<C>(acquire: () => C | Promise<C>): C | Promise<C> {
  const watching = observer;
  if (!watching) return acquire();
  const started = performance.now();
  const taken = acquire();
  if (!(taken instanceof Promise)) {
    watching.acquired(0);
    return taken;
  }
  return taken.then((connection) => {
    watching.acquired((performance.now() - started) / 1000);
    return connection;
  });
}
