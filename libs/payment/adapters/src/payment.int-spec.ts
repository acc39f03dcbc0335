import { createDbEngine, type DbEngine } from '@commerce/shared-db';
import { describeWithEngines, uniqueName } from '@commerce/shared-testing';
import { paymentContract } from './payment.contract';
import { paymentMigrationsContract } from './payment-migrations.contract';

describeWithEngines('payment on Postgres', ['postgres'], ({ url }) => {
  let engine: DbEngine;
  afterAll(() => engine?.close());
  paymentContract('Postgres', async () => {
    engine = await createDbEngine(url('postgres'));
    return engine.forSchema(uniqueName('payment'));
  });
  paymentMigrationsContract('Postgres', async () => engine.forSchema(uniqueName('payment')));
});
