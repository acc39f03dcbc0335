/**
 * An error that says a shared resource was busy for the moment — a pooled database connection not free in time
 * (`DbAcquireTimeoutError`) — not that the work asked of it is wrong: the same work succeeds once the resource
 * answers. An event bus retries an event whose handler failed on one without counting the attempt, so a starved
 * pool never dead-letters a good event (decision 105). A property rather than a class, so that an error that
 * must extend another (knex's `KnexTimeoutError`) can be one.
 */
export interface InfrastructureWait {
  readonly infrastructureWait: true;
}

/** Whether `error`, or an error it was caused by (a handler may wrap what it caught), is an infrastructure wait. */
export function isInfrastructureWait(error: unknown): boolean {
  for (let e = error, depth = 0; typeof e === 'object' && e !== null && depth < 5; depth++, e = (e as { cause?: unknown }).cause)
    if ((e as Partial<InfrastructureWait>).infrastructureWait === true) return true;
  return false;
}
