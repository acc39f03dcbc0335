import type { BrandsAndCollectionsRepository, CatalogRef, RefKind } from '@commerce/catalog-core';
import type { Db, Knex } from '@commerce/shared-db';
import { chunks, table, uriRunEnd, uriTaken, type SqlScope } from './catalog-sql';

const REF_TABLES: Record<RefKind, string> = { brand: 'brands', collection: 'collections' };

export interface RefRow {
  id: number;
  external_id: string;
  name: string;
  uri: string;
}
export const toRef = (r: RefRow): CatalogRef => ({ id: r.id, externalId: r.external_id, name: r.name, uri: r.uri });

/** Brands or collections by id; unknown ids are left out. */
export async function refsById(scope: SqlScope, kind: RefKind, ids: Array<number | null>): Promise<Map<number, CatalogRef>> {
  const wanted = [...new Set(ids.filter((id): id is number => id !== null))];
  if (wanted.length === 0) return new Map();
  const rows = (await table(scope, REF_TABLES[kind]).whereIn('id', wanted)) as RefRow[];
  return new Map(rows.map((r) => [r.id, toRef(r)]));
}

/** The brands and collections of a unit of work (`trx`). */
export function createBrandsAndCollectionsRepository(db: Db, trx: Knex.Transaction): BrandsAndCollectionsRepository {
  const t = (kind: RefKind) => db.table(REF_TABLES[kind], trx);
  return {
    async findByExternalIds(kind, externalIds) {
      const refs: CatalogRef[] = [];
      for (const part of chunks([...new Set(externalIds)]))
        refs.push(...((await t(kind).whereIn('external_id', part)) as RefRow[]).map(toRef));
      return refs;
    },
    uriTaken: (kind, uri, exceptId) => uriTaken(t(kind), uri, exceptId),
    uriHighestSuffix: (kind, base) => uriRunEnd(t(kind), base),
    async save(kind, ref) {
      const row = { external_id: ref.externalId, name: ref.name, uri: ref.uri };
      const [saved] =
        ref.id === null ? await t(kind).insert(row).returning('id') : await t(kind).where({ id: ref.id }).update(row).returning('id');
      return { ...ref, id: (saved as { id: number }).id };
    },
  };
}
