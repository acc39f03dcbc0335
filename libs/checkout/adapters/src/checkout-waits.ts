import { Registry } from 'prom-client';
import type { CheckoutDeps } from '@commerce/checkout-core';
import { WAIT_BUCKETS, registerCollectedHistogram } from '@commerce/shared-http';

/**
 * The stages a selection request waits on at the edge (issue 28): the session read with its selection's version
 * (`session_read`: the store's turn), the new-session limit (`session_limit`), the cart's new selection
 * (`cart_create`) or change (`cart_change`: decision 78's batch included), the version raise after it
 * (`version_raise`), the session write (`session_write`), a product the edge's cache did not have
 * (`catalog_product`).
 */
export type CheckoutStage =
  'session_read' | 'session_limit' | 'cart_create' | 'cart_change' | 'version_raise' | 'session_write' | 'catalog_product';

/** One stage's samples: counts per bucket (not cumulative; the last is past every bound), their sum and count. */
interface StageSamples {
  stage: CheckoutStage;
  inBucket: number[];
  sum: number;
  count: number;
}

const NAME = 'checkout_wait_seconds';
const HELP =
  'What a checkout request waited on at the edge, by stage: session_read, session_limit, cart_create, cart_change, version_raise, session_write, catalog_product';

/**
 * `checkout_wait_seconds{stage}`: each stage's time from asking to its answer, in a registry the edge serves at
 * `/metrics`. What a request spends between the stages is the edge's own work and its event loop's queue. Counted in
 * arrays of its own and served as a Prometheus histogram at each scrape (as `nodejs_eventloop_delay_seconds`): an
 * observation is a clock read and an increment, where prom-client's `observe` checks and hashes the labels at each of
 * a request's four or five (decision 190).
 */
export function checkoutWaits(): {
  registry: Registry;
  timed: <A extends unknown[], R>(stage: CheckoutStage, call: (...args: A) => Promise<R>) => (...args: A) => Promise<R>;
} {
  const registry = new Registry();
  const stages = new Map<CheckoutStage, StageSamples>();
  const samplesOf = (stage: CheckoutStage): StageSamples => {
    let samples = stages.get(stage);
    if (!samples) stages.set(stage, (samples = { stage, inBucket: new Array<number>(WAIT_BUCKETS.length + 1).fill(0), sum: 0, count: 0 }));
    return samples;
  };
  registerCollectedHistogram(registry, {
    name: NAME,
    help: HELP,
    buckets: WAIT_BUCKETS,
    collect: () =>
      [...stages.values()].map(({ stage, inBucket, sum, count }) => {
        let below = 0;
        return { labels: { stage }, atOrBelow: WAIT_BUCKETS.map((_, i) => (below += inBucket[i] ?? 0)), sum, count };
      }),
  });
  const timed = <A extends unknown[], R>(stage: CheckoutStage, call: (...args: A) => Promise<R>) => {
    const samples = samplesOf(stage);
    const done = (started: number) => () => {
      const seconds = (performance.now() - started) / 1000;
      let i = 0;
      for (const bound of WAIT_BUCKETS) {
        if (seconds <= bound) break;
        i++;
      }
      samples.inBucket[i] = (samples.inBucket[i] ?? 0) + 1;
      samples.sum += seconds;
      samples.count++;
    };
    return (...args: A): Promise<R> => {
      const observe = done(performance.now());
      const work = call(...args);
      work.then(observe, observe);
      return work;
    };
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
