import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { enqueue, outboxBatch, outboxInputSql, outboxInsertSql, outboxWritten } from '@commerce/shared-bus';
import { isUniqueViolation, retryContended, type Db } from '@commerce/shared-db';
import {
  ORDER_STATUS_DESCRIPTIONS,
  type CancelledLine,
  type OrderDto,
  type OrderInvoice,
  type OrderShipment,
  type ValidPlaceOrderCommand,
} from '@commerce/order-contracts';
import type { OrderRepository, OrderUnitOfWork } from '@commerce/order-core';

interface OrderRow {
  id: string;
  store: string;
  number: string | number;
  payment_attempt_id: string;
  customer_id: string | null;
  placed_at: Date | string;
  status: string;
  version: number;
  snapshot: ValidPlaceOrderCommand | string;
}
interface ShipmentRow {
  order_id: string;
  shipment: string;
  shipped_date: string;
  carrier: string;
  service: string;
  tracking_id: string;
  tracking_url: string;
}
interface CancelledRow {
  order_id: string;
  item: string;
  sku: string;
  quantity: number;
}
interface InvoiceRow {
  order_id: string;
  invoice: string;
  data: OrderInvoice | string;
}

const ORDER_COLUMNS = ['id', 'store', 'number', 'payment_attempt_id', 'customer_id', 'placed_at', 'status', 'version', 'snapshot'];
const json = <T>(value: T | string): T => (typeof value === 'string' ? (JSON.parse(value) as T) : value);
/** The SQLSTATE of a unique key met: a placing of an attempt that has its order. */

/**
 * A placing in one statement (issue 28; bound as in `place`): the store's counter taken (insert-or-increment: its
 * row locked until the statement ends, placings in one store take turns), the order inserted with that number, the
 * customer's count kept, and the events written to the outbox with the number put in for `:placeholder` (the events
 * are encoded before the number is known). A second order of an attempt fails the whole statement at the attempt's
 * unique key: nothing written, the number given back.
 */
const placeSql = `with number as (
    insert into :numbers: (store, last) values (:store, 1)
    on conflict (store) do update set last = order_numbers.last + 1 returning last
  ), placed as (
    insert into :orders: (id, store, number, payment_attempt_id, customer_id, placed_at, status, version, snapshot, selection_left_open)
    select :id, :store, number.last, :attempt, :customer, :placedAt, :status, :version, cast(:snapshot as jsonb), :leftOpen from number
    returning number, customer_id
  ), counted as (
    insert into :counts: (customer_id, orders) select customer_id, 1 from placed where customer_id is not null
    on conflict (customer_id) do update set orders = customer_order_counts.orders + 1
  ), input as (${outboxInputSql}
  ), numbered as (
    select cast(replace(cast(input.e as text), :placeholder, concat('"', placed.number, '"')) as json) as e, n, id, topic, key, type, request_id
    from input, placed
  ), written as (${outboxInsertSql('numbered', ':outbox:')})
  select number from placed`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The order's own fields the snapshot holds: everything the placing command carried. */
function snapshotOf(order: OrderDto): ValidPlaceOrderCommand {
  const {
    id: _id,
    order: _number,
    status: _status,
    statusDescription: _description,
    placedAt: _placedAt,
    shipments: _shipments,
    cancelled: _cancelled,
    invoices: _invoices,
    version: _version,
    ...snapshot
  } = order;
  return snapshot;
}

/** An order from its row and the rows of its lists. */
function orderOf(row: OrderRow, lists: { shipments: ShipmentRow[]; cancelled: CancelledRow[]; invoices: InvoiceRow[] }): OrderDto {
  return {
    ...json(row.snapshot),
    id: row.id,
    order: String(row.number),
    status: row.status,
    statusDescription: ORDER_STATUS_DESCRIPTIONS[row.status] ?? row.status,
    placedAt: new Date(row.placed_at).toISOString(),
    shipments: lists.shipments.map((s): OrderShipment => ({
      shipment: s.shipment,
      shippedDate: s.shipped_date,
      carrier: s.carrier,
      service: s.service,
      trackingId: s.tracking_id,
      trackingUrl: s.tracking_url,
    })),
    cancelled: lists.cancelled.map((c): CancelledLine => ({ item: c.item, sku: c.sku, quantity: Number(c.quantity) })),
    invoices: lists.invoices.map((i) => json(i.data)),
    version: Number(row.version),
  };
}

/**
 * The order repository; inside `outer` (a consumer's dedupe transaction) every read and write joins it,
 * so the dedupe record, the change and its outbox rows commit together.
 */
export function createOrderRepository(db: Db, outer?: Knex.Transaction): OrderRepository {
  /** Orders with their shipments, cancelled lines and invoices: four queries whatever the number of orders. */
  const hydrate = async (rows: OrderRow[], trx?: Knex.Transaction): Promise<OrderDto[]> => {
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.id);
    const [shipments, cancelled, invoices] = await Promise.all([
      db.table('order_shipments', trx).whereIn('order_id', ids).orderBy('seq').select<ShipmentRow[]>('*'),
      db.table('order_cancelled_lines', trx).whereIn('order_id', ids).orderBy('item').select<CancelledRow[]>('*'),
      db.table('order_invoices', trx).whereIn('order_id', ids).orderBy('invoice').select<InvoiceRow[]>('*'),
    ]);
    const group = <R extends { order_id: string }>(list: R[]) => {
      const by = new Map<string, R[]>();
      for (const r of list) by.set(r.order_id, [...(by.get(r.order_id) ?? []), r]);
      return by;
    };
    const [shipmentsOf, cancelledOf, invoicesOf] = [group(shipments), group(cancelled), group(invoices)];
    return rows.map((row) =>
      orderOf(row, {
        shipments: shipmentsOf.get(row.id) ?? [],
        cancelled: cancelledOf.get(row.id) ?? [],
        invoices: invoicesOf.get(row.id) ?? [],
      }),
    );
  };

  /**
   * One order with its shipments, cancelled lines and invoices in one statement (issue 28: the row and its three
   * lists were four): each list a `json_agg` of its rows, in the order `hydrate` reads them.
   */
  const one = async (query: Knex.QueryBuilder): Promise<OrderDto | null> => {
    const list = (table: string, order: string) =>
      db.knex.raw(`(select coalesce(json_agg(x order by x.${order}), '[]'::json) from ??.?? as x where x.order_id = "orders".id) as ??`, [
        db.schema,
        table,
        table,
      ]);
    const row = (await query.first(
      ...ORDER_COLUMNS.map((c) => `orders.${c}`),
      list('order_shipments', 'seq'),
      list('order_cancelled_lines', 'item'),
      list('order_invoices', 'invoice'),
    )) as
      | (OrderRow & {
          order_shipments: ShipmentRow[] | string;
          order_cancelled_lines: CancelledRow[] | string;
          order_invoices: InvoiceRow[] | string;
        })
      | undefined;
    return row
      ? orderOf(row, {
          shipments: json(row.order_shipments),
          cancelled: json(row.order_cancelled_lines),
          invoices: json(row.order_invoices),
        })
      : null;
  };

  /**
   * `checkoutOf` with the consumer's record: the order's row read, and the event recorded in `processed_events` (the
   * table `recordConsumed` writes) only when the order is there with its selection closed. A prepared statement.
   */
  const checkoutConsumedSql = `with placed as (
      select number, selection_left_open from ${db.qualified('orders')} where payment_attempt_id = ?
    ), recorded as (
      insert into ${db.qualified('processed_events')} (consumer, event_id)
      select consumer, event_id from (values (cast(? as text), cast(? as text))) as e(consumer, event_id)
      where exists (select 1 from placed where not selection_left_open)
      on conflict (consumer, event_id) do nothing
    )
    select number, selection_left_open from placed`;

  const unitOfWork = (trx: Knex.Transaction): OrderUnitOfWork => ({
    findByPaymentAttempt: (attempt) => one(db.table('orders', trx).where({ payment_attempt_id: attempt })),
    async findForUpdate(store, reference) {
      const query = db.table('orders', trx).forUpdate();
      if (UUID.test(reference)) query.where({ id: reference });
      else if (/^\d{1,18}$/.test(reference)) query.where({ number: reference, ...(store ? { store } : {}) }).orderBy('placed_at', 'desc');
      else return null;
      return one(query);
    },
    async update(order) {
      await db
        .table('orders', trx)
        .where({ id: order.id })
        .update({ status: order.status, version: order.version, updated_at: trx.fn.now() });
      for (const s of order.shipments) {
        await db
          .table('order_shipments', trx)
          .insert({
            order_id: order.id,
            shipment: s.shipment,
            shipped_date: s.shippedDate,
            carrier: s.carrier,
            service: s.service,
            tracking_id: s.trackingId,
            tracking_url: s.trackingUrl,
          })
          .onConflict(['order_id', 'shipment'])
          .merge(['shipped_date', 'carrier', 'service', 'tracking_id', 'tracking_url']);
      }
      for (const c of order.cancelled) {
        await db
          .table('order_cancelled_lines', trx)
          .insert({ order_id: order.id, item: c.item, sku: c.sku, quantity: c.quantity })
          .onConflict(['order_id', 'item'])
          .merge(['sku', 'quantity']);
      }
      for (const i of order.invoices) {
        await db
          .table('order_invoices', trx)
          .insert({ invoice: i.invoice, order_id: order.id, data: JSON.stringify(i) })
          .onConflict(['invoice'])
          .merge(['order_id', 'data']);
      }
    },
    publish: (events) => enqueue(db, trx, events),
  });

  return {
    // A transaction of its own is run again when Postgres gives it up for contention (decision 121); inside
    // `outer` the owner of that transaction decides.
    async place(orderOf, eventsOf, options = {}) {
      // The number's stand-in, unique to this order: its JSON string is what the statement replaces in the events.
      const pending = orderOf(`#number-of-order-${randomUUID()}`);
      const bindings = {
        ...outboxBatch(eventsOf(pending)),
        placeholder: JSON.stringify(pending.order),
        numbers: `${db.schema}.order_numbers`,
        orders: `${db.schema}.orders`,
        counts: `${db.schema}.customer_order_counts`,
        outbox: `${db.schema}.outbox`,
        store: pending.store,
        id: pending.id,
        attempt: pending.paymentAttemptId,
        customer: pending.customerId,
        placedAt: pending.placedAt,
        status: pending.status,
        version: pending.version,
        snapshot: JSON.stringify(snapshotOf(pending)),
        leftOpen: options.selectionLeftOpen ?? false,
      };
      // Inside `outer` a savepoint keeps its transaction usable when the attempt's key is met.
      const run = () => (outer ? outer.transaction((trx) => trx.raw(placeSql, bindings)) : db.knex.raw(placeSql, bindings));
      try {
        const result = (await (outer ? run() : retryContended(run))) as { rows: Array<{ number: string | number }> };
        outboxWritten(db, outer);
        return orderOf(String(result.rows[0]!.number));
      } catch (error) {
        if (isUniqueViolation(error)) return null;
        throw error;
      }
    },
    transaction: (fn) => (outer ? fn(unitOfWork(outer)) : retryContended(() => db.transaction((trx) => fn(unitOfWork(trx))))),
    findById: (id) => (UUID.test(id) ? one(db.table('orders', outer).where({ id })) : Promise.resolve(null)),
    findByPaymentAttempt: (attempt) => one(db.table('orders', outer).where({ payment_attempt_id: attempt })),
    async checkoutOf(attempt, consumed) {
      type Row = { number: string | number; selection_left_open: boolean };
      const row = consumed
        ? (await db.query<Row>(checkoutConsumedSql, [attempt, consumed.consumer, consumed.eventId]))[0]
        : ((await db.table('orders', outer).where({ payment_attempt_id: attempt }).first('number', 'selection_left_open')) as
            Row | undefined);
      return row ? { order: String(row.number), selectionLeftOpen: Boolean(row.selection_left_open) } : null;
    },
    async listByCustomer(customerId, from, size) {
      const page = db
        .table('orders', outer)
        .where({ customer_id: customerId })
        .orderBy([
          { column: 'placed_at', order: 'desc' },
          { column: 'number', order: 'desc' },
        ])
        .offset(from)
        .select(...ORDER_COLUMNS);
      if (size !== null) page.limit(size);
      const [rows, count] = await Promise.all([
        size === 0 ? Promise.resolve([] as OrderRow[]) : (page as Promise<OrderRow[]>),
        db.table('customer_order_counts', outer).where({ customer_id: customerId }).first('orders') as Promise<
          { orders: number } | undefined
        >,
      ]);
      return { orders: await hydrate(rows, outer), totalSize: Number(count?.orders ?? 0) };
    },
  };
}
