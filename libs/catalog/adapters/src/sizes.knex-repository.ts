import type { Size, SizesRepository, SizeTable } from '@commerce/catalog-core';
import type { Db, Knex } from '@commerce/shared-db';
import { chunks, table, type SqlScope } from './catalog-sql';

interface SizeRow {
  id: number;
  external_id: string;
  name: string;
  sku: string;
  ean: string;
  comment: string;
  size_table_external_id: string | null;
}
export interface SizeTableRow {
  external_id: string;
  description: string;
  stock_divisor: number;
  stock_unit: string;
}

const toSize = (r: SizeRow): Size => ({
  id: r.id,
  externalId: r.external_id,
  name: r.name,
  sku: r.sku,
  ean: r.ean,
  comment: r.comment,
  sizeTableExternalId: r.size_table_external_id,
});
export const toSizeTable = (r: SizeTableRow): SizeTable => ({
  externalId: r.external_id,
  description: r.description,
  stockDivisor: r.stock_divisor,
  stockUnit: r.stock_unit,
});

/** Size tables by external id; unknown ones are left out. */
export async function sizeTablesByExternalId(scope: SqlScope, externalIds: string[]): Promise<Map<string, SizeTable>> {
  if (externalIds.length === 0) return new Map();
  const rows = (await table(scope, 'size_tables').whereIn('external_id', externalIds)) as SizeTableRow[];
  return new Map(rows.map((r) => [r.external_id, toSizeTable(r)]));
}

/** The sizes and size tables of a unit of work (`trx`). */
export function createSizesRepository(db: Db, trx: Knex.Transaction): SizesRepository {
  const t = (name: string) => db.table(name, trx);
  return {
    async findByExternalIds(externalIds) {
      const found: Size[] = [];
      for (const part of chunks([...new Set(externalIds)]))
        found.push(...((await t('sizes').whereIn('external_id', part)) as SizeRow[]).map(toSize));
      return found;
    },
    async save(size) {
      const row = {
        external_id: size.externalId,
        name: size.name,
        sku: size.sku,
        ean: size.ean,
        comment: size.comment,
        size_table_external_id: size.sizeTableExternalId,
      };
      const [saved] =
        size.id === null
          ? await t('sizes').insert(row).returning('id')
          : await t('sizes').where({ id: size.id }).update(row).returning('id');
      return { ...size, id: (saved as { id: number }).id };
    },
    async findTable(externalId) {
      const r = (await t('size_tables').where({ external_id: externalId }).first()) as SizeTableRow | undefined;
      return r ? toSizeTable(r) : null;
    },
    async saveTable(sizeTable) {
      await t('size_tables')
        .insert({
          external_id: sizeTable.externalId,
          description: sizeTable.description,
          stock_divisor: sizeTable.stockDivisor,
          stock_unit: sizeTable.stockUnit,
        })
        .onConflict('external_id')
        .merge();
    },
  };
}
