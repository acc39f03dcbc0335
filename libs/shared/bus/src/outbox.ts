import { randomUUID } from 'node:crypto';
import type { Db, Knex, Migration } from '@commerce/shared-db';
import { currentRequestId, REQUEST_ID_HEADER, withRequestContext, type Logger } from '@commerce/shared-logging';
import type { EventEnvelope } from '@commerce/shared-events';
import type { EncodedEvent, EventBus } from './event-bus.port';
import { EVENT_ID_HEADER, EVENT_TYPE_HEADER, withCurrentRequestId } from './envelope-codec';

/**
 * The tables of the transactional outbox and of consumer dedupe, in the service's own schema. A
 * service appends these to its migration list (names are stable: never rename them).
 */
export const outboxMigrations: Migration[] = [
  {
    name: 'shared-bus-001-outbox',
    up: async (knex, schema) => {
      await knex.schema.withSchema(schema).createTable('outbox', (t) => {
        t.bigIncrements('seq');
        t.uuid('id').notNullable().unique();
        t.text('topic').notNullable();
        t.text('key').notNullable();
        t.jsonb('envelope').notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
        t.timestamp('sent_at', { useTz: true }).nullable();
      });
      // The relay reads only pending rows, oldest first.
      await knex.raw('create index outbox_pending on ??.outbox (seq) where sent_at is null', [schema]);
      await knex.schema.withSchema(schema).createTable('processed_events', (t) => {
        t.text('consumer').notNullable();
        t.text('event_id').notNullable();
        t.timestamp('processed_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
        t.primary(['consumer', 'event_id']);
      });
    },
    down: async (knex, schema) => {
      await knex.schema.withSchema(schema).dropTable('processed_events');
      await knex.schema.withSchema(schema).dropTable('outbox');
    },
  },
  {
    name: 'shared-bus-002-retention-indexes',
    up: async (knex, schema) => {
      // The retention pruner deletes the oldest sent rows and dedupe records a batch at a time.
      await knex.raw('create index outbox_sent_at on ??.outbox (sent_at) where sent_at is not null', [schema]);
      await knex.raw('create index processed_events_processed_at on ??.processed_events (processed_at)', [schema]);
    },
    down: async (knex, schema) => {
      await knex.raw('drop index ??.processed_events_processed_at', [schema]);
      await knex.raw('drop index ??.outbox_sent_at', [schema]);
    },
  },
  {
    // An envelope is written once, read once by the relay and never queried by its content: `json` keeps
    // the text as written, where `jsonb` converted it to its binary form and back, about half the cost of
    // inserting a large batch's events (a 1,000-product products_Update, decision 52).
    name: 'shared-bus-003-outbox-envelope-json',
    up: async (knex, schema) => {
      await knex.raw('alter table ??.outbox alter column envelope type json using envelope::json', [schema]);
    },
    down: async (knex, schema) => {
      await knex.raw('alter table ??.outbox alter column envelope type jsonb using envelope::jsonb', [schema]);
    },
  },
  {
    // Envelopes are compressed with lz4 where the server has it (`default_toast_compression`'s choices;
    // PGlite has only pglz): a 1,000-product SOAP batch's 4.3 MB of envelopes are TOASTed row by row, and
    // lz4 costs a fraction of pglz's CPU (decision 73). Rows written before keep their compression.
    name: 'shared-bus-004-outbox-envelope-lz4',
    up: async (knex, schema) => {
      const lz4 = await knex.raw(`select 1 from pg_settings where name = 'default_toast_compression' and 'lz4' = any(enumvals)`);
      if (lz4.rows.length > 0) await knex.raw('alter table ??.outbox alter column envelope set compression lz4', [schema]);
    },
    down: async (knex, schema) => {
      await knex.raw('alter table ??.outbox alter column envelope set compression default', [schema]);
    },
  },
  {
    // The headers of an envelope beside its text (decision 99): the relay hands the stored text to the bus
    // as it is, with its headers, instead of parsing it (pg's JSON.parse of a `json` column) and
    // serialising it again for Kafka, ~70–90 ms of a 1,000-product SOAP batch. Rows written before have no
    // `type`: the relay parses those as it did. Nullable columns without a default: no rewrite of the table.
    name: 'shared-bus-005-outbox-headers',
    up: async (knex, schema) => {
      await knex.raw('alter table ??.outbox add column type text, add column request_id text', [schema]);
    },
    down: async (knex, schema) => {
      await knex.raw('alter table ??.outbox drop column type, drop column request_id', [schema]);
    },
  },
  {
    // The Postgres relays' lease (decision 186): one row, the relay that publishes this outbox (`holder`, a
    // relay's random id) until `held_until`. Starts expired: the first relay to look takes it.
    name: 'shared-bus-006-outbox-lease',
    up: async (knex, schema) => {
      await knex.schema.withSchema(schema).createTable('outbox_lease', (t) => {
        t.boolean('one').notNullable().defaultTo(true).primary();
        t.text('holder').nullable();
        t.timestamp('held_until', { useTz: true }).notNullable();
      });
      await knex.raw('alter table ??.outbox_lease add constraint outbox_lease_one check (one)', [schema]);
      await knex.raw(`insert into ??.outbox_lease (held_until) values ('-infinity')`, [schema]);
    },
    down: async (knex, schema) => {
      await knex.schema.withSchema(schema).dropTable('outbox_lease');
    },
  },
];

/**
 * A batch of envelopes as the bindings of `outboxInputSql`: the envelopes as one JSON array (one
 * parameter), each carrying the current request id, and each row's id, topic and key as arrays beside it,
 * so Postgres does not read them back out of every envelope's JSON (a `json` value is text: each `->>`
 * parsed a whole envelope again, three times a row, ~100 ms of a 1,000-product SOAP batch).
 */
export interface OutboxBatch {
  batch: string;
  ids: string[];
  topics: string[];
  keys: string[];
  /** The envelopes' `type` and `requestId` (null without one): their headers, kept beside the text (decision 99). */
  types: string[];
  requestIds: Array<string | null>;
}

export function outboxBatch(events: readonly EventEnvelope[]): OutboxBatch {
  const envelopes = events.map(withCurrentRequestId);
  return {
    batch: JSON.stringify(envelopes),
    ids: envelopes.map((e) => e.id),
    topics: envelopes.map((e) => e.topic),
    keys: envelopes.map((e) => e.key),
    types: envelopes.map((e) => e.type),
    requestIds: envelopes.map((e) => e.requestId ?? null),
  };
}

/**
 * The relation of an `OutboxBatch`'s rows (bound as `:batch`, `:ids`, `:topics`, `:keys`, `:types`,
 * `:requestIds`): `e` the envelope (json, the text as sent), `n` its position, and its `id`, `topic`,
 * `key`, `type` and `request_id`.
 */
export const outboxInputSql = `select r.e, r.n, m.id, m.topic, m.key, m.type, m.request_id
  from json_array_elements(cast(:batch as json)) with ordinality as r(e, n)
  join unnest(cast(:ids as uuid[]), cast(:topics as text[]), cast(:keys as text[]), cast(:types as text[]), cast(:requestIds as text[]))
    with ordinality as m(id, topic, key, type, request_id, n) on m.n = r.n`;

/**
 * The statement that writes outbox rows from `input`, a relation of `outboxInputSql`'s columns, into
 * `outbox` (an identifier binding of knex's raw, e.g. `:outbox:`): the envelope is stored as the text it
 * was sent as. `enqueue` and statements that write their own rows beside it share it.
 */
export const outboxInsertSql = (input: string, outbox: string): string =>
  `insert into ${outbox} (id, topic, key, type, request_id, envelope) select id, topic, key, type, request_id, e from ${input} order by n`;

/**
 * Writes events to the outbox inside the caller's transaction: they are published (by the relay)
 * only if that transaction commits. An event made inside a request carries its request id. One
 * statement with the envelopes as one JSON parameter, however many: a multi-row insert bound four
 * parameters an event (the catalog's apply of 1,000 products enqueues ~15,000 events, near Postgres's
 * 65,535), which knex and pg numbered and framed one by one.
 */
export async function enqueue(db: Db, trx: Knex.Transaction, events: EventEnvelope[]): Promise<void> {
  if (events.length === 0) return;
  await trx.raw(`with input as (${outboxInputSql}) ${outboxInsertSql('input', ':outbox:')}`, {
    ...outboxBatch(events),
    outbox: `${db.schema}.outbox`,
  });
  outboxWritten(db, trx);
}

/** The started relays of each outbox in this process: a knex instance, then the schema. */
const relaysOf = new WeakMap<Knex, Map<string, Set<OutboxRelay>>>();

/**
 * Tells this process's relays of `db`'s outbox that rows were written: once `trx` (its outermost
 * transaction, when it is a nested one) commits, or now without one (a statement that committed on its
 * own). `enqueue` calls it, so every service's writes are published at once; a statement that writes
 * outbox rows itself (`outboxInsertSql`) calls it after. A rollback nudges nobody. Relays of other
 * processes (replicas) find the rows at their next poll.
 */
export function outboxWritten(db: Db, trx?: Knex.Transaction): void {
  const nudge = () => {
    for (const relay of relaysOf.get(db.knex)?.get(db.schema) ?? []) relay.nudge();
  };
  if (!trx) return nudge();
  let outer = trx as Knex.Transaction & { parentTransaction?: Knex.Transaction };
  while (outer.parentTransaction) outer = outer.parentTransaction;
  // knex sets it on every transaction; a missing one (another driver) nudges now, the poll covers the rest.
  if (!outer.executionPromise) return nudge();
  outer.executionPromise.then(nudge, () => undefined);
}

function register(relay: OutboxRelay, db: Db, on: boolean): void {
  let bySchema = relaysOf.get(db.knex);
  if (!bySchema) relaysOf.set(db.knex, (bySchema = new Map()));
  const relays = bySchema.get(db.schema) ?? new Set<OutboxRelay>();
  if (on) relays.add(relay);
  else relays.delete(relay);
  if (relays.size > 0) bySchema.set(db.schema, relays);
  else bySchema.delete(db.schema);
}

/** The relays' poll period when none is given (`OUTBOX_POLL_MS`): a safety net, writes nudge their relay. */
export const DEFAULT_OUTBOX_POLL_MS = 1000;

export interface OutboxRelayOptions {
  logger?: Logger;
  /**
   * Poll period (default `DEFAULT_OUTBOX_POLL_MS`, 1 s): the safety net for rows no relay of this process
   * was nudged about — written by another process or replica, or left pending by a failed publish. Rows
   * written through `enqueue` in this process are published as soon as their transaction commits.
   */
  intervalMs?: number;
  /**
   * Rows per publish (default 500): the catalog's apply of 1,000 products enqueues ~15,000 events, each
   * round a read, a publish and an update (the Kafka bus splits a large publish by bytes).
   */
  batchSize?: number;
  /**
   * Holds the relay back this long after `start` (default 0): nothing is published, nudges included, until
   * it passes. For crash tests that kill a process between committing and publishing.
   */
  startDelayMs?: number;
  /**
   * Postgres: how long the relay's lease on its outbox lasts (default the larger of `DEFAULT_OUTBOX_LEASE_MS`,
   * 10 s, and three polls). One relay of an outbox publishes at a time; a relay that died without stopping is
   * replaced once its lease lapsed, and republishes its last batch (decision 186).
   */
  leaseMs?: number;
}

/** How long a Postgres relay's lease lasts at least (decision 186): a relay that died is replaced after this. */
export const DEFAULT_OUTBOX_LEASE_MS = 10_000;

/**
 * A Postgres relay's turn in one statement (decision 186; issue 28: a publish was a BEGIN, a statement and a
 * COMMIT held open while the bus was awaited). In order of the text:
 * - the previous batch, published and acknowledged since the last turn, is marked sent (`:sent`, its seqs);
 * - the outbox's lease is taken when it lapsed, or renewed by its holder once half of it is gone (`:holder` the
 *   relay's id, `:leaseMs`): a holder with more than half of it left writes nothing;
 * - while this relay holds the lease, the oldest pending rows are read (those of the previous batch left out: the
 *   statement's own mark is not visible to its read; an anti-join, as the catalog's batches are 5,000 rows), the
 *   envelope as text (decision 99), in seq order.
 * Autocommit: no transaction stays open while the bus is awaited; a row is marked sent only at the turn after its
 * publish was acknowledged, so a relay that dies in between leaves it pending (published again: at least once).
 */
const relayTurnSql = (db: Db): string => {
  const outbox = db.qualified('outbox');
  const lease = db.qualified('outbox_lease');
  const half = `now() + cast(:leaseMs as integer) * interval '0.5 millisecond'`;
  return `with marked as (
    update ${outbox} set sent_at = now() where seq = any(cast(:sent as bigint[])) and sent_at is null
  ), taken as (
    update ${lease} set holder = :holder, held_until = now() + cast(:leaseMs as integer) * interval '1 millisecond'
    where held_until < now() or (holder = :holder and held_until < ${half})
    returning 1
  ), held as (
    select 1 from taken
    union all
    select 1 from ${lease} where holder = :holder and held_until >= ${half}
  )
  select p.seq, p.id, p.topic, p.key, p.type, p.request_id, p.envelope::text as envelope from ${outbox} as p
  where p.sent_at is null and exists (select 1 from held)
    and not exists (select 1 from unnest(cast(:sent as bigint[])) as b(seq) where b.seq = p.seq)
  order by p.seq limit cast(:limit as integer)`;
};

/** A stopping relay's last statement: its last batch marked sent and its lease given up, so another relay takes it at once. */
const relayLeaveSql = (db: Db): string => `with marked as (
    update ${db.qualified('outbox')} set sent_at = now() where seq = any(cast(:sent as bigint[])) and sent_at is null
  )
  update ${db.qualified('outbox_lease')} set held_until = '-infinity' where holder = :holder`;

/** A pending outbox row: the envelope as the text it was written as, and its headers' columns (null on rows from before decision 99). */
interface PendingRow {
  seq: number | string;
  id: string;
  topic: string;
  key: string;
  type: string | null;
  request_id: string | null;
  envelope: string;
}

/**
 * Publishes the outbox to the bus in `seq` order and marks rows sent only once the bus acknowledged
 * them, so an event is published at least once and never before its transaction committed. When the
 * bus fails, rows stay pending and are retried on the next tick. On Postgres one relay of an outbox (its
 * lease's holder) publishes at a time, each turn one statement that also marks the previous batch sent
 * (decision 186); on PGlite relays of one process take turns, each marking its batch as soon as it is out.
 */
export class OutboxRelay {
  private readonly logger: Logger | undefined;
  private readonly intervalMs: number;
  private readonly batchSize: number;
  private readonly startDelayMs: number;
  private readonly leaseMs: number;
  /** This relay's id as its lease's holder. */
  private readonly holder = randomUUID();
  private readonly turnSql: string;
  private chain: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private nudged = false;
  private started = false;
  private stopped = false;
  /** Postgres: `leave` ran (the lease given up): no later turn takes it back. */
  private left = false;
  private failing = false;
  /** Postgres: whether a turn ran (the relay may hold the lease), and the seqs published since, to be marked sent by the next statement. */
  private turned = false;
  private unmarked: Array<number | string> = [];

  constructor(
    private readonly db: Db,
    private readonly bus: EventBus,
    options: OutboxRelayOptions = {},
  ) {
    this.logger = options.logger;
    this.intervalMs = options.intervalMs ?? DEFAULT_OUTBOX_POLL_MS;
    this.batchSize = options.batchSize ?? 500;
    this.startDelayMs = options.startDelayMs ?? 0;
    this.leaseMs = Math.round(options.leaseMs ?? Math.max(DEFAULT_OUTBOX_LEASE_MS, 3 * this.intervalMs));
    this.turnSql = relayTurnSql(db);
  }

  /** Starts polling. */
  start(): void {
    if (this.started || this.stopped || this.timer) return;
    if (this.startDelayMs === 0) return this.begin();
    this.logger?.warn({ schema: this.db.schema, startDelayMs: this.startDelayMs }, 'outbox relay: held back after start');
    this.timer = setTimeout(() => this.begin(), this.startDelayMs);
    this.timer.unref?.();
  }

  private begin(): void {
    if (this.stopped) return;
    this.started = true;
    register(this, this.db, true);
    this.schedule(0);
  }

  /** Publishes soon (call after a commit that enqueued events), without waiting for the next tick. */
  nudge(): void {
    if (!this.started || this.stopped || this.nudged) return;
    this.nudged = true;
    // Under the nudging request's id (its logs, its statements' count), not its deadline: a request's time left
    // does not cut the relay's statements short (`Db.query` gives up a request's statement at its deadline).
    const requestId = currentRequestId();
    setImmediate(() => {
      this.nudged = false;
      // A nudge queued before `stop` does not turn after it (its turn would take the lease back).
      if (this.stopped) return;
      const flush = () => void this.flush().catch(() => undefined);
      if (requestId === undefined) flush();
      else withRequestContext({ requestId }, flush);
    });
  }

  /**
   * Publishes everything pending now; resolves with how many events were published, rejects when the bus fails.
   * On Postgres the last batch is marked sent by the next turn (a nudge, a poll, a flush) or by `stop`.
   */
  flush(): Promise<number> {
    // One flush at a time per relay: batches go out in seq order.
    const run = this.chain.then(() => this.publishPending());
    this.chain = run.catch(() => undefined);
    return run.then(
      (count) => {
        if (this.failing) this.logger?.info('outbox relay: publishing again');
        this.failing = false;
        return count;
      },
      (error: unknown) => {
        // Once per outage, not once per tick.
        if (!this.failing) this.logger?.error({ err: error, schema: this.db.schema }, 'outbox relay: publish failed, events stay pending');
        this.failing = true;
        throw error;
      },
    );
  }

  /**
   * Stops polling and waits for a publish in progress; on Postgres then marks the last batch sent and gives up
   * the lease in one statement (a failure there is logged: the next holder publishes that batch again).
   */
  async stop(): Promise<void> {
    this.stopped = true;
    register(this, this.db, false);
    if (this.timer) clearTimeout(this.timer);
    const left = this.chain.then(() => this.leave());
    this.chain = left;
    await left;
  }

  private async leave(): Promise<void> {
    this.left = true;
    if (!this.turned) return;
    const sent = this.unmarked;
    try {
      await this.db.query(relayLeaveSql(this.db), { sent, holder: this.holder });
      this.turned = false;
      if (this.unmarked === sent) this.unmarked = [];
    } catch (error) {
      this.logger?.warn(
        { err: error, schema: this.db.schema, unmarked: sent.length },
        'outbox relay: could not mark its last batch or leave its lease',
      );
    }
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.flush()
        .catch(() => undefined)
        .finally(() => this.schedule(this.intervalMs));
    }, delayMs);
    this.timer.unref?.();
  }

  private async publishPending(): Promise<number> {
    let total = 0;
    for (;;) {
      const count = await this.publishBatch();
      total += count;
      if (count < this.batchSize || this.stopped) return total;
    }
  }

  private async publishBatch(): Promise<number> {
    if (this.db.engine === 'pglite') {
      // PGlite lives in this process only, so relays of one outbox take turns through an in-process
      // lock, and no transaction holds the only connection while the bus is awaited.
      return inProcessTurn(this.db, async () => {
        const rows = await this.pendingQuery(this.db.table('outbox'));
        return this.publishRows(rows, (seqs) => this.db.table('outbox').whereIn('seq', seqs).update({ sent_at: this.db.knex.fn.now() }));
      });
    }
    // After `leave` no turn: it would take the lease back and publish a batch nobody marks.
    if (this.left) return 0;
    // One statement a turn: the previous batch marked sent, the lease taken or kept, the next batch read (decision 186).
    const sent = this.unmarked;
    this.turned = true;
    const rows = await this.db.query<PendingRow>(this.turnSql, { sent, holder: this.holder, leaseMs: this.leaseMs, limit: this.batchSize });
    this.unmarked = [];
    // Marked sent by the next turn, once the bus acknowledged them; a failed publish leaves them pending.
    return this.publishRows(rows, async (seqs) => void (this.unmarked = seqs));
  }

  private pendingQuery(query: Knex.QueryBuilder): Knex.QueryBuilder {
    // The envelope as text (a `json` column is the text as written; pg would JSON.parse it): decision 99.
    return query
      .select('seq', 'id', 'topic', 'key', 'type', 'request_id', this.db.knex.raw('envelope::text as envelope'))
      .whereNull('sent_at')
      .orderBy('seq')
      .limit(this.batchSize);
  }

  private async publishRows(rows: PendingRow[], markSent: (seqs: Array<number | string>) => Promise<unknown>): Promise<number> {
    if (rows.length === 0) return 0;
    const encoded = this.bus.publishEncoded ? encodedRows(rows) : undefined;
    if (encoded && this.bus.publishEncoded) await this.bus.publishEncoded(encoded);
    else await this.bus.publish(rows.map((r) => JSON.parse(r.envelope) as EventEnvelope));
    await markSent(rows.map((r) => r.seq));
    return rows.length;
  }
}

/**
 * The rows as they go on the wire: the text as written, with the headers `headersOf` gives the envelope
 * (decision 99); none when a row was written before its headers were kept beside it (no `type`).
 */
function encodedRows(rows: PendingRow[]): EncodedEvent[] | undefined {
  const encoded: EncodedEvent[] = [];
  for (const { topic, key, id, type, request_id, envelope } of rows) {
    if (type === null) return undefined;
    const headers = { [EVENT_ID_HEADER]: id, [EVENT_TYPE_HEADER]: type, ...(request_id ? { [REQUEST_ID_HEADER]: request_id } : {}) };
    encoded.push({ topic, key, value: envelope, headers });
  }
  return encoded;
}

const turns = new WeakMap<Knex, Map<string, Promise<unknown>>>();

function inProcessTurn<T>(db: Db, fn: () => Promise<T>): Promise<T> {
  let bySchema = turns.get(db.knex);
  if (!bySchema) {
    bySchema = new Map();
    turns.set(db.knex, bySchema);
  }
  const previous = bySchema.get(db.schema) ?? Promise.resolve();
  const run = previous.then(fn);
  const settled = run.catch(() => undefined);
  bySchema.set(db.schema, settled);
  void settled.then(() => {
    if (bySchema.get(db.schema) === settled) bySchema.delete(db.schema);
  });
  return run;
}

/**
 * Applies an event once per consumer: records (consumer, event id) and runs apply in one transaction.
 * Returns false, doing nothing, when that consumer already processed the event (a redelivery).
 */
export async function consumeOnce(
  db: Db,
  consumer: string,
  event: EventEnvelope,
  apply: (trx: Knex.Transaction) => Promise<void>,
): Promise<boolean> {
  const fresh = await consumeBatchOnce(db, consumer, [event], async (trx, events) => {
    if (events.length > 0) await apply(trx);
  });
  return fresh.length > 0;
}

/**
 * Records that `consumer` processed the event, when it applies nothing in the database (its work is done
 * elsewhere, idempotently, before): `consumeOnce` with nothing to apply, as one statement without a
 * transaction. Resolves with whether this was the first record of it.
 */
export async function recordConsumed(db: Db, consumer: string, event: EventEnvelope): Promise<boolean> {
  const rows = (await db
    .table('processed_events')
    .insert({ consumer, event_id: event.id })
    .onConflict(['consumer', 'event_id'])
    .ignore()
    .returning('event_id')) as Array<{ event_id: string }>;
  return rows.length > 0;
}

/**
 * `consumeOnce` for a batch (`handleBatch`): records every event and applies those this consumer has not
 * processed before, in their order, in one transaction. Resolves with the events it applied.
 */
export async function consumeBatchOnce(
  db: Db,
  consumer: string,
  events: EventEnvelope[],
  apply: (trx: Knex.Transaction, fresh: EventEnvelope[]) => Promise<void>,
): Promise<EventEnvelope[]> {
  return db.transaction(async (trx) => {
    const inserted = new Set<string>();
    for (let i = 0; i < events.length; i += 1000) {
      const rows = (await db
        .table('processed_events', trx)
        .insert(events.slice(i, i + 1000).map((e) => ({ consumer, event_id: e.id })))
        .onConflict(['consumer', 'event_id'])
        .ignore()
        .returning('event_id')) as Array<{ event_id: string }>;
      for (const r of rows) inserted.add(r.event_id);
    }
    // An id twice in one batch is applied once.
    const fresh = events.filter((e) => inserted.delete(e.id));
    if (fresh.length > 0) await apply(trx, fresh);
    return fresh;
  });
}
