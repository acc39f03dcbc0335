import { Histogram, Registry } from 'prom-client';
import type { CheckoutDeps } from '@commerce/checkout-core';

/** Buckets (seconds) of a stage's wait, as the process's other waits (`db_pool_acquire_seconds`, Redis). */
const STAGE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];

/**
 * The stages a selection request waits on at the edge (issue 28): the session read with its selection's version
 * (`session_read`: the store's turn), the new-session limit (`session_limit`), the cart's new selection
 * (`cart_create`) or change (`cart_change`: decision 78's batch included), the version raise after it
 * (`version_raise`), the session write (`session_write`), a product the edge's cache did not have
 * (`catalog_product`).
 */
export type CheckoutStage =
  'session_read' | 'session_limit' | 'cart_create' | 'cart_change' | 'version_raise' | 'session_write' | 'catalog_product';

/**
 * `checkout_wait_seconds{stage}`: each stage's time from asking to its answer, in a registry the edge serves at
 * `/metrics`. What a request spends between the stages is the edge's own work and its event loop's queue.
 */
export function checkoutWaits(): {
  registry: Registry;
  timed: <A extends unknown[], R>(stage: CheckoutStage, call: (...args: A) => Promise<R>) => (...args: A) => Promise<R>;
} {
  const registry = new Registry();
  const histogram = new Histogram({
    name: 'checkout_wait_seconds',
    help: 'What a checkout request waited on at the edge, by stage: session_read, session_limit, cart_create, cart_change, version_raise, session_write, catalog_product',
    labelNames: ['stage'] as const,
    buckets: STAGE_BUCKETS,
    registers: [registry],
  });
  // One child a stage, its labels resolved once: an observation a call is a clock read and a bucket's count.
  const children: Partial<Record<CheckoutStage, ReturnType<typeof histogram.labels>>> = {};
  const timed =
    <A extends unknown[], R>(stage: CheckoutStage, call: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> => {
      const child = (children[stage] ??= histogram.labels({ stage }));
      const started = performance.now();
      const work = call(...args);
      const done = () => child.observe((performance.now() - started) / 1000);
      work.then(done, done);
      return work;
    };
  return { registry, timed };
}

/** The edge's dependencies with each stage of `checkoutWaits` timed. */
export function timedStages<D extends Pick<CheckoutDeps, 'sessions' | 'cart' | 'catalog' | 'newSessions'>>(
  deps: D,
  timed: ReturnType<typeof checkoutWaits>['timed'],
): D {
  const { sessions, cart, catalog, newSessions } = deps;
  return {
    ...deps,
    sessions: {
      ...sessions,
      ...(sessions.getWithVersion ? { getWithVersion: timed('session_read', sessions.getWithVersion.bind(sessions)) } : {}),
      get: timed('session_read', sessions.get.bind(sessions)),
      set: timed('session_write', sessions.set.bind(sessions)),
      selectionChanged: timed('version_raise', sessions.selectionChanged.bind(sessions)),
    },
    cart: {
      ...cart,
      createSelection: timed('cart_create', cart.createSelection.bind(cart)),
      changeSelection: timed('cart_change', cart.changeSelection.bind(cart)),
    },
    catalog: { ...catalog, getProduct: timed('catalog_product', catalog.getProduct.bind(catalog)) },
    ...(newSessions
      ? {
          newSessions: {
            ...newSessions,
            admit: timed('session_limit', newSessions.admit.bind(newSessions)),
            // Asked with the session's read (decision 187): its time is the read's turn.
            ...(newSessions.admitUnlessStored
              ? { admitUnlessStored: timed('session_limit', newSessions.admitUnlessStored.bind(newSessions)) }
              : {}),
          },
        }
      : {}),
  };
}
