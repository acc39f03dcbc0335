import { createDbEngine, type DbEngine } from '@commerce/shared-db';
import { describeWithEngines } from '@commerce/shared-testing';
import { catalogEntitiesContract } from './catalog-entities.contract';

describeWithEngines('catalog entities on Postgres', ['postgres'], ({ url }) => {
  let engine: DbEngine;
  beforeAll(async () => {
    engine = await createDbEngine(url('postgres'));
  });
  afterAll(async () => {
    await engine?.close();
  });

  catalogEntitiesContract(() => engine);
});
