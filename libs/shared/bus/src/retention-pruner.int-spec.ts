import { createDbEngine } from '@commerce/shared-db';
import { describeWithEngines } from '@commerce/shared-testing';
import { retentionPrunerContract } from './retention-pruner.contract';

describeWithEngines('retention pruner on Postgres', ['postgres'], (engines) => {
  retentionPrunerContract({ openDb: () => createDbEngine(engines.url('postgres'), { poolMax: 4 }) });
});
