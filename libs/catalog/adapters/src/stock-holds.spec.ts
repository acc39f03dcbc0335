import { createDbEngine, type DbEngine } from '@commerce/shared-db';
import { stockHoldsContract } from './stock-holds.contract';

let engine: DbEngine;
beforeAll(async () => {
  engine = await createDbEngine('pglite://memory');
}, 60_000);
afterAll(() => engine?.close());

stockHoldsContract('PGlite', () => engine);
