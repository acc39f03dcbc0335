import { describeWithEngines } from '@commerce/shared-testing';
import { createDbEngine } from './db-engine';
import { dbContract } from './db.contract';

describeWithEngines('Db and migrate on Postgres', ['postgres'], (engines) => {
  dbContract(() => createDbEngine(engines.url('postgres'), { poolMax: 4 }));
});
