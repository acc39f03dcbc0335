import { createDbEngine, type DbEngine } from '@commerce/shared-db';
import { uniqueName } from '@commerce/shared-testing';
import { paymentContract } from './payment.contract';
import { paymentMigrationsContract } from './payment-migrations.contract';

let engine: DbEngine;
afterAll(() => engine?.close());

paymentContract('PGlite', async () => {
  engine = await createDbEngine('pglite://memory');
  return engine.forSchema(uniqueName('payment'));
});

const migrationEngines: DbEngine[] = [];
afterAll(() => Promise.all(migrationEngines.map((e) => e.close())));
paymentMigrationsContract('PGlite', async () => {
  const fresh = await createDbEngine('pglite://memory');
  migrationEngines.push(fresh);
  return fresh.forSchema(uniqueName('payment'));
});
