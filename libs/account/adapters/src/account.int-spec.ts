import { createDbEngine, type DbEngine } from '@commerce/shared-db';
import { describeWithEngines, uniqueName } from '@commerce/shared-testing';
import { accountContract } from './account.contract';
import { resetMailContract } from './reset-mail.contract';

describeWithEngines('account on Postgres', ['postgres'], ({ url }) => {
  let engine: DbEngine;
  afterAll(() => engine?.close());
  accountContract('Postgres', async () => {
    engine ??= await createDbEngine(url('postgres'));
    return engine.forSchema(uniqueName('account'));
  });
  resetMailContract('Postgres', async () => (engine ??= await createDbEngine(url('postgres'))).forSchema(uniqueName('account_mail')));
});
