import { createDbEngine, type DbEngine } from '@commerce/shared-db';
import { receivedUpsertsStoreContract } from './received-upserts.store.contract';

let engine: DbEngine;
beforeAll(async () => {
  engine = await createDbEngine('pglite://memory');
}, 60_000);
afterAll(async () => {
  await engine?.close();
});

describe('the received-upserts store on PGlite', () => {
  receivedUpsertsStoreContract(() => engine);
});
