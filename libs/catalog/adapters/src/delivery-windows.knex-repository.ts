import type { DeliveryWindow, DeliveryWindowSpan, DeliveryWindowsRepository } from '@commerce/catalog-core';
import type { Db, Knex } from '@commerce/shared-db';
import { chunks, groupBy, isoOrNull, knexTable, table, type SqlScope } from './catalog-sql';

interface DeliveryWindowRow {
  external_id: string;
  status: string;
  description: string;
  starts_at: Date | string | null;
  stops_at: Date | string | null;
  at_once: boolean;
  active_indexed: boolean;
}
interface DeliveryWindowVariationRow {
  window: string;
  variation_external_id: string;
  type: string;
  product_limit: number | null;
  variation_limit: number | null;
}

/** The windows these variations are in, with their dates (what a product's view shows). */
export async function deliveryWindowSpans(scope: SqlScope, variationExternalIds: string[]): Promise<DeliveryWindowSpan[]> {
  if (variationExternalIds.length === 0) return [];
  const q = (name: string) => knexTable(scope.db, name);
  const spans = (await scope.db
    .knex(`${q('delivery_window_variations')} as dwv`)
    .join(`${q('delivery_windows')} as dw`, 'dw.external_id', 'dwv.window')
    .whereIn('dwv.variation_external_id', variationExternalIds)
    .select('dw.external_id', 'dwv.variation_external_id', 'dw.status', 'dw.starts_at', 'dw.stops_at')) as DeliveryWindowSpanRow[];
  return spans.map(toDeliveryWindowSpan);
}

/** A window a variation is in, as `deliveryWindowSpans` reads it. */
export interface DeliveryWindowSpanRow {
  external_id: string;
  variation_external_id: string;
  status: string;
  starts_at: Date | string | null;
  stops_at: Date | string | null;
}
export const toDeliveryWindowSpan = (s: DeliveryWindowSpanRow): DeliveryWindowSpan => ({
  windowExternalId: s.external_id,
  variationExternalId: s.variation_external_id,
  status: s.status,
  startsAt: isoOrNull(s.starts_at),
  stopsAt: isoOrNull(s.stops_at),
});

async function loadDeliveryWindows(scope: SqlScope, externalIds?: string[]): Promise<DeliveryWindow[]> {
  const query = table(scope, 'delivery_windows').orderBy('external_id');
  if (externalIds) query.whereIn('external_id', externalIds);
  const rows = (await query) as DeliveryWindowRow[];
  if (rows.length === 0) return [];
  const variations = (await table(scope, 'delivery_window_variations')
    .whereIn(
      'window',
      rows.map((r) => r.external_id),
    )
    .orderBy(['window', 'variation_external_id'])) as DeliveryWindowVariationRow[];
  const variationsOf = groupBy(variations, (v) => v.window);
  return rows.map((r) => ({
    externalId: r.external_id,
    status: r.status,
    description: r.description,
    startsAt: isoOrNull(r.starts_at),
    stopsAt: isoOrNull(r.stops_at),
    atOnce: r.at_once,
    activeIndexed: r.active_indexed,
    variations: (variationsOf.get(r.external_id) ?? []).map((v) => ({
      variationExternalId: v.variation_external_id,
      type: v.type,
      productLimit: v.product_limit,
      variationLimit: v.variation_limit,
    })),
  }));
}

/** The delivery windows of a unit of work (`trx`). */
export function createDeliveryWindowsRepository(db: Db, trx: Knex.Transaction): DeliveryWindowsRepository {
  const scope: SqlScope = { db, trx };
  return {
    async find(externalId) {
      return (await loadDeliveryWindows(scope, [externalId]))[0] ?? null;
    },
    list: () => loadDeliveryWindows(scope),
    async save(window) {
      await table(scope, 'delivery_windows')
        .insert({
          external_id: window.externalId,
          status: window.status,
          description: window.description,
          starts_at: window.startsAt,
          stops_at: window.stopsAt,
          at_once: window.atOnce,
          active_indexed: window.activeIndexed,
        })
        .onConflict('external_id')
        .merge();
      await table(scope, 'delivery_window_variations').where({ window: window.externalId }).delete();
      const rows = window.variations.map((v) => ({
        window: window.externalId,
        variation_external_id: v.variationExternalId,
        type: v.type,
        product_limit: v.productLimit,
        variation_limit: v.variationLimit,
      }));
      for (const part of chunks(rows)) await table(scope, 'delivery_window_variations').insert(part);
    },
    async setActiveIndexed(externalId, active) {
      await table(scope, 'delivery_windows').where({ external_id: externalId }).update({ active_indexed: active });
    },
  };
}
