import { createDbEngine, type DbEngine } from '@commerce/shared-db';
import { describeWithEngines, uniqueName } from '@commerce/shared-testing';
import { cartContract } from './cart.contract';

describeWithEngines('cart on Postgres', ['postgres'], ({ url }) => {
  let engine: DbEngine | undefined;
  afterAll(() => engine?.close());
  // One pool; each call a schema of its own.
  cartContract('Postgres', async () => {
    engine ??= await createDbEngine(url('postgres'));
    return engine.forSchema(uniqueName('cart'));
  });
});
