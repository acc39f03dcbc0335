import { createDbEngine, type DbEngine } from '@commerce/shared-db';
import { describeWithEngines } from '@commerce/shared-testing';
import { changeEventStoreContract } from './change-events.store.contract';

describeWithEngines('the change-event feed on Postgres', ['postgres'], ({ url }) => {
  let engine: DbEngine;
  beforeAll(async () => {
    engine = await createDbEngine(url('postgres'));
  });
  afterAll(async () => {
    await engine?.close();
  });

  changeEventStoreContract(() => engine);
});
