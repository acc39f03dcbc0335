import { createDbEngine, type DbEngine } from '@commerce/shared-db';
import { uniqueName } from '@commerce/shared-testing';
import { orderContract } from './order.contract';

let engine: DbEngine | undefined;
afterAll(() => engine?.close());

const db = async () => {
  engine ??= await createDbEngine('pglite://memory');
  return engine.forSchema(uniqueName('order'));
};

orderContract('PGlite', db);
orderContract('PGlite', db, { overHttp: true });
