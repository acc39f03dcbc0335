import { createDbEngine } from '@commerce/shared-db';
import { retentionPrunerContract } from './retention-pruner.contract';

describe('retention pruner on PGlite', () => {
  retentionPrunerContract({ openDb: () => createDbEngine('pglite://memory') });
});
