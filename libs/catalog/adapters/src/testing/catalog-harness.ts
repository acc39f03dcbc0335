import { CatalogTopics } from '@commerce/catalog-contracts';
import type { SoapPricelist } from '@commerce/erp-contracts';
import { catalogUseCases, defaultCatalogSettings, type CatalogSettings, type CatalogUseCases, type Clock } from '@commerce/catalog-core';
import { migrate, type Db, type DbEngine } from '@commerce/shared-db';
import { uniqueName } from '@commerce/shared-testing';
import { catalogMigrations } from '../catalog.migrations';
import { createCatalogRepository } from '../catalog.knex-repository';
import { MiniSearchIndex } from '../search/minisearch.search-index';

/** A clock a test moves by hand. */
export class TestClock implements Clock {
  constructor(private current = new Date('2026-03-01T12:00:00.000Z')) {}
  now(): Date {
    return new Date(this.current);
  }
  set(iso: string): void {
    this.current = new Date(iso);
  }
}

export interface CatalogHarness {
  db: Db;
  catalog: CatalogUseCases;
  search: MiniSearchIndex;
  clock: TestClock;
  /** Product ids of the `ProductUpserted` events in the outbox, oldest first (then forgets them). */
  takeEvents(): Promise<string[]>;
  /** Rebuilds the index from the store (what the indexer does after the events). */
  reindex(): Promise<void>;
}

/** The catalog's use cases on a fresh schema of a shared PGlite or Postgres engine, with an embedded index. */
export async function catalogHarness(engine: DbEngine, settings: CatalogSettings = defaultCatalogSettings): Promise<CatalogHarness> {
  const db = engine.forSchema(uniqueName('catalog'));
  await migrate(db, catalogMigrations);
  const search = new MiniSearchIndex();
  const clock = new TestClock();
  const catalog = catalogUseCases({ catalog: createCatalogRepository(db), search, settings, clock });
  let seen = 0;
  return {
    db,
    catalog,
    search,
    clock,
    async takeEvents() {
      const rows = (await db.table('outbox').where('seq', '>', seen).orderBy('seq')) as Array<{
        seq: number | string;
        topic: string;
        envelope: unknown;
      }>;
      if (rows.length > 0) seen = Number(rows[rows.length - 1]!.seq);
      return rows
        .filter((r) => r.topic === CatalogTopics.PRODUCT)
        .map((r) => {
          const envelope = (typeof r.envelope === 'string' ? JSON.parse(r.envelope) : r.envelope) as { payload: { productId: string } };
          return envelope.payload.productId;
        });
    },
    async reindex() {
      await catalog.reindexAll();
    },
  };
}

/** A pricelist of the ERP pricing products at one price each, in SEK. */
export function soapPricelist(id: string, prices: Record<string, string>, overrides: Partial<SoapPricelist> = {}): SoapPricelist {
  return {
    id,
    currency: 'SEK',
    description: `Pricelist ${id}`,
    items: Object.entries(prices).map(([product, price]) => ({ id: product, price })),
    ...overrides,
  };
}

/** The number of rows of a table of the harness's schema. */
export const countRows = async (db: Db, table: string): Promise<number> => Number((await db.table(table).count({ n: '*' }))[0]!['n']);

/** The id of a variant (the checkout API's product id), by the ERP's variation id. */
export async function variationId(db: Db, variationExternalId: string): Promise<string> {
  const row = await db.table('variants').where({ external_id: variationExternalId }).first('id');
  if (!row) throw new Error(`no variant ${variationExternalId}`);
  return String(row.id);
}

/** The id of a product's first variant (the checkout API's product id), by the ERP's product id. */
export async function variantId(db: Db, productExternalId: string): Promise<string> {
  const row = await db
    .table('variants')
    .join(`${db.schema}.products as p`, 'p.id', `${db.schema}.variants.product_id`)
    .where('p.external_id', productExternalId)
    .orderBy(`${db.schema}.variants.position`)
    .first(`${db.schema}.variants.id`);
  if (!row) throw new Error(`no variant of ${productExternalId}`);
  return String(row.id);
}
