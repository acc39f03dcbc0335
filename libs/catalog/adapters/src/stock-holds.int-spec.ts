import { createDbEngine, type DbEngine } from '@commerce/shared-db';
import { describeWithEngines } from '@commerce/shared-testing';
import { stockHoldsContract } from './stock-holds.contract';

describeWithEngines('stock holds on Postgres', ['postgres'], ({ url }) => {
  let engine: DbEngine;
  beforeAll(async () => {
    engine = await createDbEngine(url('postgres'));
  });
  afterAll(() => engine?.close());
  stockHoldsContract('Postgres', () => engine);
});
