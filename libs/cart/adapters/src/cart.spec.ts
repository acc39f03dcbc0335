import { createDbEngine, type DbEngine } from '@commerce/shared-db';
import { uniqueName } from '@commerce/shared-testing';
import { cartContract } from './cart.contract';

let engine: DbEngine;
afterAll(() => engine?.close());

cartContract('PGlite', async () => {
  engine = await createDbEngine('pglite://memory');
  return engine.forSchema(uniqueName('cart'));
});
