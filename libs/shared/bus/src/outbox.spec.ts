import { createDbEngine } from '@commerce/shared-db';
import { createMemoryBus } from './memory-bus';
import { outboxContract } from './outbox.contract';

describe('outbox on PGlite and the memory bus', () => {
  outboxContract({
    engine: 'pglite',
    openDb: () => createDbEngine('pglite://memory'),
    openBus: async () => createMemoryBus(),
    timeoutMs: 2000,
  });
});
