import { createDbEngine, type DbEngine } from '@commerce/shared-db';
import { describeWithEngines } from '@commerce/shared-testing';
import { receivedUpsertsStoreContract } from './received-upserts.store.contract';

describeWithEngines('the received-upserts store on Postgres', ['postgres'], ({ url }) => {
  let engine: DbEngine;
  beforeAll(async () => {
    engine = await createDbEngine(url('postgres'));
  });
  afterAll(async () => {
    await engine?.close();
  });

  receivedUpsertsStoreContract(() => engine);
});
