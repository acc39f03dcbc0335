import { createDbEngine, type DbEngine } from '@commerce/shared-db';
import { uniqueName } from '@commerce/shared-testing';
import { cartContract } from './cart.contract';

let engine: DbEngine | undefined;
afterAll(() => engine?.close());

// One PGlite instance; each call a schema of its own.
cartContract('PGlite', async () => {
  engine ??= await createDbEngine('pglite://memory');
  return engine.forSchema(uniqueName('cart'));
});
