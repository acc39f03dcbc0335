import { createDbEngine, type DbEngine } from '@commerce/shared-db';
import { changeEventStoreContract } from './change-events.store.contract';

let engine: DbEngine;
beforeAll(async () => {
  engine = await createDbEngine('pglite://memory');
}, 60_000);
afterAll(async () => {
  await engine?.close();
});

describe('the change-event feed on PGlite', () => {
  changeEventStoreContract(() => engine);
});
