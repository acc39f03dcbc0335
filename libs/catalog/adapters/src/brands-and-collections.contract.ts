import type { DbEngine } from '@commerce/shared-db';
import { createCatalogRepository } from './catalog.knex-repository';
import { catalogHarness } from './testing/catalog-harness';

/**
 * The brands and collections repository (brands-and-collections.knex-repository.ts): a slice of the catalog
 * store's contract (`catalog-entities.contract.ts`), run on PGlite and on Postgres.
 */
export function brandsAndCollectionsContract(openEngine: () => DbEngine): void {
  describe('the brands and collections repository', () => {
    it('keeps brands and collections apart, each kind with its own URIs', async () => {
      const { db } = await catalogHarness(openEngine());
      const repo = createCatalogRepository(db);
      const found = await repo.transaction(async (uow) => {
        const refs = uow.brandsAndCollections;
        const brand = await refs.save('brand', { id: null, externalId: 'B-1', name: 'Acme', uri: 'acme' });
        await refs.save('collection', { id: null, externalId: 'B-1', name: 'Acme', uri: 'acme' });
        await refs.save('brand', { id: null, externalId: 'B-2', name: 'Acme', uri: 'acme-2' });
        return {
          brand,
          taken: await refs.uriTaken('brand', 'acme', null),
          takenByItself: await refs.uriTaken('brand', 'acme', brand.id),
          brandRun: await refs.uriHighestSuffix('brand', 'acme'),
          collectionRun: await refs.uriHighestSuffix('collection', 'acme'),
          free: await refs.uriHighestSuffix('brand', 'other'),
          byExternalId: (await refs.findByExternalIds('brand', ['B-2', 'B-404'])).map((r) => r.uri),
        };
      });
      expect(found).toMatchObject({ taken: true, takenByItself: false, brandRun: 2, collectionRun: 1, free: 0, byExternalId: ['acme-2'] });

      const renamed = await repo.transaction((uow) => uow.brandsAndCollections.save('brand', { ...found.brand, name: 'Acme Co' }));
      expect(renamed).toEqual({ ...found.brand, name: 'Acme Co' });
      expect(await repo.findRefs('brand', [found.brand.id, found.brand.id + 1000])).toEqual([renamed]);
    });
  });
}
