import { categoryTreeOrder, type CategoriesRepository, type Category } from '@commerce/catalog-core';
import type { Db, Knex } from '@commerce/shared-db';
import { chunks, json, nextval, knexTable, table, uriRunEnd, uriTaken, type SqlScope } from './catalog-sql';

export interface CategoryRow {
  id: number;
  external_id: string;
  name: string;
  uri: string;
  parent_id: number | null;
  position: number;
  configured: boolean;
  name_path: unknown;
}

export const toCategory = (r: CategoryRow): Category => ({
  id: r.id,
  externalId: r.external_id,
  name: r.name,
  uri: r.uri,
  parentId: r.parent_id,
  position: r.position,
  configured: r.configured,
  namePath: json<string[]>(r.name_path),
});

/** Every category in tree order: each followed by its children, siblings in configured order. */
export async function categoriesInTreeOrder(scope: SqlScope): Promise<Category[]> {
  return categoryTreeOrder(((await table(scope, 'categories')) as CategoryRow[]).map(toCategory));
}

/** These categories and every ancestor of theirs (the search document lists a product under each level). */
export async function categoriesWithAncestors(scope: SqlScope, ids: number[]): Promise<Map<number, Category>> {
  const found = new Map<number, Category>();
  let wanted = [...new Set(ids)];
  // One query per level of the tree; a cycle cannot loop, as found ids are not asked again.
  while (wanted.length > 0) {
    const rows = (await table(scope, 'categories').whereIn('id', wanted)) as CategoryRow[];
    for (const r of rows) found.set(r.id, toCategory(r));
    wanted = [...new Set(rows.map((r) => r.parent_id).filter((id): id is number => id !== null && !found.has(id)))];
  }
  return found;
}

/** The category of a URI (its full path), if any. */
export async function categoryIdOfUri(scope: SqlScope, uri: string): Promise<number | null> {
  const row = (await table(scope, 'categories').where({ uri }).first('id')) as { id: number } | undefined;
  return row?.id ?? null;
}

/** The categories of a unit of work (`trx`). */
export function createCategoriesRepository(db: Db, trx: Knex.Transaction): CategoriesRepository {
  const t = () => db.table('categories', trx);
  return {
    async findByExternalIds(externalIds) {
      const found: Category[] = [];
      for (const part of chunks([...new Set(externalIds)]))
        found.push(...((await t().whereIn('external_id', part)) as CategoryRow[]).map(toCategory));
      return found;
    },
    async list() {
      return ((await t().orderBy('id')) as CategoryRow[]).map(toCategory);
    },
    nextId: () => nextval(trx, knexTable(db, 'categories')),
    uriTaken: (uri, exceptId) => uriTaken(t(), uri, exceptId),
    uriHighestSuffix: (base) => uriRunEnd(t(), base),
    async nextTopPosition() {
      const row = (await t().whereNull('parent_id').max({ p: 'position' }).first()) as { p: number | null } | undefined;
      return row?.p === null || row?.p === undefined ? 0 : Number(row.p) + 1;
    },
    async save(categories) {
      if (categories.length === 0) return;
      const ids = categories.map((c) => c.id);
      // URIs may move between categories in one change; free theirs first (parents before children follow from the ids).
      await t()
        .whereIn('id', ids)
        .update({ uri: db.knex.raw(`'~' || id`) });
      const rows = categories.map((c) => ({
        id: c.id,
        external_id: c.externalId,
        name: c.name,
        uri: c.uri,
        parent_id: null,
        position: c.position,
        configured: c.configured,
        name_path: JSON.stringify(c.namePath),
      }));
      await t().insert(rows).onConflict('id').merge();
      // Parents second: a parent may be among the rows just inserted.
      for (const c of categories) {
        if (c.parentId !== null) await t().where({ id: c.id }).update({ parent_id: c.parentId });
      }
    },
  };
}
