import { createDbEngine } from './db-engine';
import { dbContract } from './db.contract';

describe('Db and migrate on PGlite (in memory)', () => {
  dbContract(() => createDbEngine('pglite://memory'), 'order');
});
