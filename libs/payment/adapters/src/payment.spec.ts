import { createDbEngine, type DbEngine } from '@commerce/shared-db';
import { uniqueName } from '@commerce/shared-testing';
import { paymentContract } from './payment.contract';

let engine: DbEngine;
afterAll(() => engine?.close());

paymentContract('PGlite', async () => {
  engine = await createDbEngine('pglite://memory');
  return engine.forSchema(uniqueName('payment'));
});
