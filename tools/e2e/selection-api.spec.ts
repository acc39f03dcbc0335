import { createDbEngine, type DbEngine } from '@commerce/shared-db';
import { MemorySessionStore } from '@commerce/shared-sessions';
import { uniqueName } from '@commerce/shared-testing';
import { selectionApiContract } from './selection-api.contract';

// The embedded adapters: PGlite and the in-memory session store, whose clock the test moves.
let engine: DbEngine | undefined;
let clock = Date.now();
let store: MemorySessionStore | undefined;
afterAll(() => engine?.close());

for (const cartOverHttp of [false, true]) {
  selectionApiContract(`PGlite and in-memory sessions, the cart ${cartOverHttp ? 'over HTTP' : 'in process'}`, () => ({
    cartOverHttp,
    db: async () => {
      engine ??= await createDbEngine('pglite://memory');
      return engine.forSchema(uniqueName('cart'));
    },
    sessions: async () => (store = new MemorySessionStore({ ttlSeconds: 3600, now: () => clock })),
    storedKeys: async () => store!.size + store!.counters,
    expireSessions: () => {
      clock += 3601 * 1000;
    },
  }));
}
