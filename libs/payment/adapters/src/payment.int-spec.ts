import { createDbEngine, quoteIdentifier, type DbEngine } from '@commerce/shared-db';
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

// The all-in-one's schemas are the services' names, `order` a keyword: its raw SQL quotes every table (`db.qualified`).
// A database of its own, so the schema's name is this run's alone.
describeWithEngines('payment on Postgres, in a schema named by a keyword', ['postgres'], ({ url }) => {
  const database = uniqueName('keyword');
  let admin: DbEngine;
  let engine: DbEngine;
  afterAll(async () => {
    await engine?.close();
    await admin?.knex.raw(`drop database if exists ${quoteIdentifier(database)} with (force)`);
    await admin?.close();
  });
  paymentContract('Postgres (schema "order")', async () => {
    admin = await createDbEngine(url('postgres'));
    await admin.knex.raw(`create database ${quoteIdentifier(database)}`);
    const own = new URL(url('postgres'));
    own.pathname = `/${database}`;
    engine = await createDbEngine(own.toString());
    return engine.forSchema('order');
  });
});
