import { createDbEngine, type DbEngine } from '@commerce/shared-db';
import { createSessionStore } from '@commerce/shared-sessions';
import { describeWithEngines, uniqueName } from '@commerce/shared-testing';
import { selectionApiContract } from './selection-api.contract';

// The real adapters: the cart on Postgres (over its internal HTTP API, as deployed) and sessions in Redis.
describeWithEngines('selection API on real engines', ['postgres', 'redis'], ({ url }) => {
  let engine: DbEngine | undefined;
  afterAll(() => engine?.close());
  selectionApiContract('Postgres and Redis, the cart over HTTP', () => ({
    cartOverHttp: true,
    redisUrl: () => url('redis'),
    db: async () => {
      engine ??= await createDbEngine(url('postgres'));
      return engine.forSchema(uniqueName('cart'));
    },
    sessions: () => createSessionStore(url('redis'), { ttlSeconds: 3600, keyPrefix: `${uniqueName('selection_api')}:` }),
  }));
});
