import { createDbEngine, type DbEngine } from '@commerce/shared-db';
import { catalogEntitiesContract } from './catalog-entities.contract';

let engine: DbEngine;
beforeAll(async () => {
  engine = await createDbEngine('pglite://memory');
}, 60_000);
afterAll(() => engine?.close());

describe('catalog entities on PGlite', () => {
  catalogEntitiesContract(() => engine);
});
