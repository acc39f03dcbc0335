import Redis from 'ioredis';
import { createDbEngine, type DbEngine } from '@commerce/shared-db';
import { createSessionStore } from '@commerce/shared-sessions';
import { describeWithEngines, uniqueName } from '@commerce/shared-testing';
import { selectionApiContract } from './selection-api.contract';

// The real adapters: the cart on Postgres (over its internal HTTP API, as deployed) and sessions in Redis.
describeWithEngines('selection API on real engines', ['postgres', 'redis'], ({ url }) => {
  let engine: DbEngine | undefined;
  const keyPrefix = `${uniqueName('selection_api')}:`;
  let redis: Redis | undefined;
  afterAll(async () => {
    await engine?.close();
    redis?.disconnect();
  });
  /** The keys under the sessions' prefix (sessions and selection counters), the tokens' key left out. */
  const storedKeys = async () => {
    redis ??= new Redis(url('redis'));
    const keys: string[] = [];
    for await (const batch of redis.scanStream({ match: `${keyPrefix}*`, count: 1000 }) as AsyncIterable<string[]>) keys.push(...batch);
    return keys.filter((k) => k !== `${keyPrefix}#token-key`).length;
  };
  selectionApiContract('Postgres and Redis, the cart over HTTP', () => ({
    cartOverHttp: true,
    redisUrl: () => url('redis'),
    db: async () => {
      engine ??= await createDbEngine(url('postgres'));
      return engine.forSchema(uniqueName('cart'));
    },
    sessions: () => createSessionStore(url('redis'), { ttlSeconds: 3600, keyPrefix }),
    storedKeys,
  }));
});
