import { randomUUID } from 'node:crypto';
import type { Db } from '@commerce/shared-db';
import type { Logger } from '@commerce/shared-logging';
import type { ResetMailOutcome, ResetMailQueue, ResetMailRequest } from '@commerce/account-core';

export interface ResetMailRelayOptions {
  logger?: Logger;
  /** Poll period: requests nobody nudged about (another replica wrote them) and retries coming due (default 1 s). */
  intervalMs?: number;
  /** The wait after a failed send, doubled per attempt up to `retryMaxMs` (defaults 5 s and 5 min). */
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** How long a request being sent is not taken by another relay (one that died mid-send: default 5 min). */
  leaseMs?: number;
  /** Requests taken per pass (default 10). */
  batchSize?: number;
  /** Done requests are deleted after this long (default one day). */
  keepDoneMs?: number;
  /**
   * Done requests are looked for to delete at most this often (default a minute; decision 200): the poll every
   * second looked each time, a DELETE a second for rows that age by the day.
   */
  pruneEveryMs?: number;
  now?: () => Date;
}

export interface ResetMailRelay extends ResetMailQueue {
  /** Starts polling. */
  start(): void;
  /** Sends soon, without waiting for the next poll (called after every enqueue). */
  nudge(): void;
  /** Sends everything due now, pass after pass, until nothing is (tests, shutdown); failures wait for their retry. */
  drain(): Promise<void>;
  /** Stops polling and waits for a pass in progress. */
  stop(): Promise<void>;
}

interface Row {
  id: string;
  email: string;
  link_path: string;
  requested_at: Date | string;
  attempts: number;
}

/**
 * The reset mails' outbox (decision 47): `enqueue` commits a request before the answer; a pass takes the due
 * requests in one statement (`for update skip locked`, so relays of several replicas never take the same one)
 * and leases them, sends each through `deliver`, and marks it done with its outcome; a failed send is
 * retried with a doubling wait, so a failing SMTP server loses nothing and a request is mailed once.
 */
export function createResetMailRelay(
  db: Db,
  deliver: (request: ResetMailRequest) => Promise<ResetMailOutcome>,
  options: ResetMailRelayOptions = {},
): ResetMailRelay {
  const now = options.now ?? (() => new Date());
  const intervalMs = options.intervalMs ?? 1000;
  const retryBaseMs = options.retryBaseMs ?? 5000;
  const retryMaxMs = options.retryMaxMs ?? 5 * 60_000;
  const leaseMs = options.leaseMs ?? 5 * 60_000;
  const batchSize = options.batchSize ?? 10;
  const keepDoneMs = options.keepDoneMs ?? 24 * 3600_000;
  const pruneEveryMs = options.pruneEveryMs ?? 60_000;
  let prunedAt = Number.NEGATIVE_INFINITY;
  const later = (ms: number) => new Date(now().getTime() + ms);
  let chain: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  let started = false;
  let stopped = false;
  let nudged = false;

  const take = async (): Promise<Row[]> => {
    const due = db
      .table('reset_mails')
      .select('id')
      .whereNull('done_at')
      .andWhere('next_attempt_at', '<=', now())
      .orderBy('next_attempt_at')
      .limit(batchSize)
      .forUpdate()
      .skipLocked();
    return (await db
      .table('reset_mails')
      .whereIn('id', due)
      .update({ next_attempt_at: later(leaseMs), attempts: db.knex.raw('attempts + 1') })
      .returning(['id', 'email', 'link_path', 'requested_at', 'attempts'])) as Row[];
  };

  const send = async (row: Row): Promise<void> => {
    const request: ResetMailRequest = {
      id: row.id,
      email: row.email,
      linkPath: row.link_path,
      requestedAt: new Date(row.requested_at),
      attempts: Number(row.attempts),
    };
    let outcome: ResetMailOutcome;
    try {
      outcome = await deliver(request);
    } catch (err) {
      const waitMs = Math.min(retryMaxMs, retryBaseMs * 2 ** (request.attempts - 1));
      options.logger?.warn({ err, request: row.id, attempts: request.attempts, retryInMs: waitMs }, 'reset mail not sent, retrying');
      await db
        .table('reset_mails')
        .where({ id: row.id })
        .update({ next_attempt_at: later(waitMs), last_error: String((err as Error)?.message ?? err).slice(0, 1000) });
      return;
    }
    await db.table('reset_mails').where({ id: row.id }).update({ done_at: now(), outcome, last_error: null });
  };

  /** One pass: how many requests it took. */
  const pass = async (): Promise<number> => {
    const rows = await take();
    for (const row of rows) await send(row);
    const at = now().getTime();
    if (at - prunedAt >= pruneEveryMs) {
      await db
        .table('reset_mails')
        .where('done_at', '<', new Date(at - keepDoneMs))
        .delete();
      prunedAt = at;
    }
    return rows.length;
  };

  const queued = (work: () => Promise<number>): Promise<number> => {
    const run = chain.then(work);
    chain = run.catch((err: unknown) => options.logger?.error({ err }, 'reset mail relay: pass failed'));
    return run;
  };

  const schedule = (delayMs: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      void queued(pass)
        .catch(() => undefined)
        .finally(() => schedule(intervalMs));
    }, delayMs);
    timer.unref?.();
  };

  const relay: ResetMailRelay = {
    async enqueue(request) {
      await db.table('reset_mails').insert({
        id: randomUUID(),
        email: request.email,
        link_path: request.linkPath,
        requested_at: request.requestedAt,
        next_attempt_at: request.requestedAt,
      });
      relay.nudge();
    },
    start() {
      if (started || stopped) return;
      started = true;
      schedule(0);
    },
    nudge() {
      if (!started || stopped || nudged) return;
      nudged = true;
      setImmediate(() => {
        nudged = false;
        void queued(pass).catch(() => undefined);
      });
    },
    async drain() {
      while ((await queued(pass)) > 0);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await chain;
    },
  };
  return relay;
}
