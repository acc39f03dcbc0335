import type { DbEngine } from '@commerce/shared-db';
import { brandsAndCollectionsContract } from './brands-and-collections.contract';
import { categoriesContract } from './categories.contract';
import { deliveryWindowsContract } from './delivery-windows.contract';
import { marketsAndWarehousesContract } from './markets-and-warehouses.contract';
import { pricesContract } from './prices.contract';
import { productsContract } from './products.contract';
import { sizesContract } from './sizes.contract';

/**
 * The catalog's store (`catalog.knex-repository.ts` and a repository per aggregate) and the entities the back
 * office sends, one slice per repository: written once, run on PGlite (`catalog.entities.spec.ts`) and on
 * Postgres (`catalog.entities.int-spec.ts`).
 */
export function catalogEntitiesContract(openEngine: () => DbEngine): void {
  productsContract(openEngine);
  brandsAndCollectionsContract(openEngine);
  categoriesContract(openEngine);
  sizesContract(openEngine);
  marketsAndWarehousesContract(openEngine);
  pricesContract(openEngine);
  deliveryWindowsContract(openEngine);
}
