import { createDbEngine, type DbEngine } from '@commerce/shared-db';
import { describeWithEngines, uniqueName } from '@commerce/shared-testing';
import { orderContract } from './order.contract';

describeWithEngines('order on Postgres', ['postgres'], ({ url }) => {
  let engine: DbEngine;
  afterAll(() => engine?.close());
  orderContract('Postgres', async () => {
    engine = await createDbEngine(url('postgres'));
    return engine.forSchema(uniqueName('order'));
  });
});
