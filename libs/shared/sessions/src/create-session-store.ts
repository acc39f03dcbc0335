import { ConfigError } from '@commerce/shared-config';
import { MemorySessionStore } from './memory-session-store';
import { RedisSessionStore } from './redis-session-store';
import type { SessionStore, SessionStoreOptions } from './session-store';

/** Picks the adapter by config: `memory` for the embedded store, `redis://…` / `rediss://…` for Redis. */
export async function createSessionStore(url: string, options: SessionStoreOptions): Promise<SessionStore> {
  const value = url.trim();
  if (value === 'memory') return new MemorySessionStore(options);
  if (/^rediss?:\/\//.test(value)) return RedisSessionStore.connect(value, options);
  throw new ConfigError(`session store: url must be "memory" or a redis:// URL (got ${JSON.stringify(url)})`);
}
