import { createDbEngine, type DbEngine } from '@commerce/shared-db';
import { uniqueName } from '@commerce/shared-testing';
import { orderContract } from './order.contract';

let engine: DbEngine;
afterAll(() => engine?.close());

orderContract('PGlite', async () => {
  engine = await createDbEngine('pglite://memory');
  return engine.forSchema(uniqueName('order'));
});
