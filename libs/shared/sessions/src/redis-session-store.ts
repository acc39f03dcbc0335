import Redis from 'ioredis';
import { instrumentRedis } from './redis-instruments';
import type { Logger } from '@commerce/shared-logging';
import {
  DEFAULT_KEY_PREFIX,
  SessionStoreUnavailableError,
  assertTtl,
  slideSlackMs,
  type SessionData,
  type SessionStore,
  type SessionStoreOptions,
} from './session-store';
import { newTokenKey, tokenMinter, type MintedToken, type TokenMinter } from './session-token';

const CONNECT_TIMEOUT_MS = 1500;
/**
 * A command without an answer in this time fails (ioredis's `commandTimeout`): a Redis that stalls (paused, a
 * fail-over) costs a request 1 s, within the edge's 2 s budget, instead of the whole stall (decision 132). The
 * command stays in the client's queue, so a late answer is matched to it and the next command's answer to the next.
 */
export const REDIS_COMMAND_TIMEOUT_MS = 1000;
const START_ATTEMPTS = 2;
const START_RETRY_DELAY_MS = 250;
// connectTimeout covers the TCP connect only; a peer that accepts and never answers needs this.
const ATTEMPT_DEADLINE_MS = CONNECT_TIMEOUT_MS + 500;

async function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`no answer within ${ms} ms`), { code: 'ETIMEDOUT' })), ms);
  });
  work.catch(() => undefined); // settles after the deadline won; nothing left to report
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** The URL without its password, fit for a log line or an error message. */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return url;
  }
}

const reasonOf = (err: unknown): string => {
  const e = err as { code?: unknown; message?: unknown };
  if (typeof e?.code === 'string') return e.code;
  return typeof e?.message === 'string' ? (e.message.split('\n')[0] ?? 'error') : String(err);
};

/**
 * Raises every counter of KEYS by one, in their order (a key named twice is raised twice), each with its TTL
 * (ARGV[1], seconds) restarted; their new values in the same order.
 */
const RAISE_SCRIPT = `
local raised = {}
for i, key in ipairs(KEYS) do
  raised[i] = redis.call('INCR', key)
  redis.call('EXPIRE', key, ARGV[1])
end
return raised`;

/** A counter's raise waiting for the tick's script (`RedisSessionStore.raise`). */
interface PendingRaise {
  key: string;
  resolve(value: number): void;
  reject(error: unknown): void;
}

/** The key of the store's tokens (decision 134): the one already beside the sessions, else this one, kept. */
const TOKEN_KEY_SCRIPT = `
redis.call('SET', KEYS[1], ARGV[1], 'NX')
return redis.call('GET', KEYS[1])`;

/** A session read waiting for the turn's script (`RedisSessionStore.getWithCounter`). */
interface PendingRead {
  key: string;
  field: string;
  counterKeyPrefix: string;
  resolve(value: [string | null, string | null]): void;
  reject(error: unknown): void;
}

/**
 * Sessions, each with the counter one of its fields names, in one round trip (decision 97): KEYS are the
 * sessions; ARGV[1] the TTL in ms, ARGV[2] the slack in ms, then for the i-th key its field (ARGV[1 + 2i]) and
 * its counter keys' prefix (ARGV[2 + 2i]); the answer is each key's session and counter in turn (false where
 * none). A session's TTL is slid only once it has lost more than the slack (a write propagated to replicas
 * and the AOF, so not at every read). A counter's key comes from the session's content, so it is not among
 * KEYS: fine on one Redis (with replicas), not on a Redis Cluster, where the counter would have to share the
 * session's hash slot.
 */
const GET_WITH_COUNTERS_SCRIPT = `
local ttl = tonumber(ARGV[1])
local slack = tonumber(ARGV[2])
local out = {}
for i, key in ipairs(KEYS) do
  local s = redis.call('GET', key)
  local counter = false
  if s then
    if redis.call('PTTL', key) < ttl - slack then redis.call('PEXPIRE', key, ttl) end
    local field = ARGV[1 + 2 * i]
    if field ~= '' then
      local ok, data = pcall(cjson.decode, s)
      local name = ok and type(data) == 'table' and data[field]
      if type(name) == 'string' then counter = redis.call('GET', ARGV[2 + 2 * i] .. name) or '0' end
    end
  else
    s = false
  end
  out[2 * i - 1] = s
  out[2 * i] = counter
end
return out`;

/** The real adapter: a read slides the TTL in the same round trip (a script), once the session lost more than the slack. */
export class RedisSessionStore implements SessionStore {
  readonly kind = 'redis' as const;
  private closed = false;

  private readonly slackMs: number;
  /** The raises asked for in this tick, sent together as one script when it ends (decision 89). */
  private raises: PendingRaise[] = [];
  /** The session reads asked for in this turn of the event loop, sent together as one script (decision 97). */
  private reads: PendingRead[] = [];

  private readonly tokens: TokenMinter;

  private constructor(
    private readonly redis: Redis,
    private readonly url: string,
    private readonly ttlSeconds: number,
    private readonly prefix: string,
    tokenKey: Buffer,
  ) {
    this.slackMs = slideSlackMs(ttlSeconds);
    this.tokens = tokenMinter(tokenKey, ttlSeconds * 1000, Date.now);
    // The number of keys comes first in each call: one script reads the sessions of a turn together.
    redis.defineCommand('sessionsWithCounters', { lua: GET_WITH_COUNTERS_SCRIPT });
    // The number of keys comes first in each call: one script raises the counters of a tick together.
    redis.defineCommand('raiseCounters', { lua: RAISE_SCRIPT });
  }

  /** Connects and checks that Redis answers; throws SessionStoreUnavailableError within a few seconds if not. */
  static async connect(url: string, options: SessionStoreOptions): Promise<RedisSessionStore> {
    assertTtl(options.ttlSeconds);
    const shown = redactRedisUrl(url);
    let lastError: unknown;
    for (let attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
      try {
        const prefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
        const { redis, tokenKey } = await openClient(url, `${prefix}#token-key`);
        attachErrorLog(redis, shown, options.logger);
        // Connected: from now on, reconnect with a capped backoff through outages.
        redis.options.retryStrategy = (times: number) => Math.min(times * 200, 2000);
        options.logger?.info({ url: shown }, 'session store connected');
        return new RedisSessionStore(redis, shown, options.ttlSeconds, prefix, tokenKey);
      } catch (err) {
        lastError = err;
        if (attempt < START_ATTEMPTS) await new Promise((r) => setTimeout(r, START_RETRY_DELAY_MS));
      }
    }
    throw new SessionStoreUnavailableError(`session store: cannot reach ${shown} (${reasonOf(lastError)})`, { cause: lastError });
  }

  async get<T = SessionData>(token: string): Promise<T | null> {
    return (await this.getWithCounter<T>(token, '', '')).session;
  }

  async getWithCounter<T = SessionData>(token: string, field: string, counterPrefix: string) {
    // One command for every read asked for in this turn of the event loop (decision 97): the requests whose
    // bytes arrived in one poll of the sockets each open their session, and one script reads them all.
    const [json, counter] = await new Promise<[string | null, string | null]>((resolve, reject) => {
      const read = { key: this.prefix + token, field, counterKeyPrefix: this.counterKey(counterPrefix), resolve, reject };
      if (this.reads.push(read) === 1) setImmediate(() => this.sendReads());
    });
    return { session: json === null ? null : (JSON.parse(json) as T), counter: counter === null ? null : Number(counter) };
  }

  /**
   * Sends the reads queued so far as one script (EVALSHA, once EVAL after a script flush). Every other
   * command sends them first, so commands still reach Redis in the order they were asked for (a write asked
   * for after a read never overtakes it).
   */
  private sendReads(): void {
    const reads = this.reads;
    if (!reads.length) return;
    this.reads = [];
    const redis = this.redis as Redis & {
      sessionsWithCounters(keys: number, ...args: Array<string | number>): Promise<Array<string | null>>;
    };
    const args: Array<string | number> = reads.map((r) => r.key);
    args.push(this.ttlSeconds * 1000, this.slackMs);
    for (const r of reads) args.push(r.field, r.counterKeyPrefix);
    this.call(() => redis.sessionsWithCounters(reads.length, ...args)).then(
      (answers) => reads.forEach((r, i) => r.resolve([answers[2 * i] ?? null, answers[2 * i + 1] ?? null])),
      (error: unknown) => reads.forEach((r) => r.reject(error)),
    );
  }

  async set(token: string, data: SessionData): Promise<void> {
    this.sendReads();
    await this.call(() => this.redis.set(this.prefix + token, JSON.stringify(data), 'EX', this.ttlSeconds));
  }

  mintToken(tag?: string): string {
    return this.tokens.mint(tag);
  }

  minted(token: string): MintedToken | null {
    return this.tokens.minted(token);
  }

  async delete(token: string): Promise<void> {
    this.sendReads();
    await this.call(() => this.redis.del(this.prefix + token));
  }

  async counter(name: string): Promise<number> {
    this.sendReads();
    return Number((await this.call(() => this.redis.get(this.counterKey(name)))) ?? 0);
  }

  raise(name: string): Promise<number> {
    // One command for every raise asked for in this tick (decision 89): the changes a cart batch answered
    // together (decision 78) resume in one tick, each raising its selection's counter before it answers.
    // INCR and the TTL together in a script (atomic, as MULTI would be, at a fraction of the client's cost
    // per call), so a counter never lives on without one; sent by its SHA-1 (EVALSHA, once EVAL after a
    // script flush), not as its text.
    return new Promise<number>((resolve, reject) => {
      if (this.raises.push({ key: this.counterKey(name), resolve, reject }) === 1) process.nextTick(() => this.sendRaises());
    });
  }

  private sendRaises(): void {
    this.sendReads();
    const raises = this.raises;
    this.raises = [];
    const redis = this.redis as Redis & { raiseCounters(keys: number, ...args: Array<string | number>): Promise<number[]> };
    const keys = raises.map((r) => r.key);
    this.call(() => redis.raiseCounters(keys.length, ...keys, this.ttlSeconds)).then(
      (raised) => raises.forEach((r, i) => r.resolve(Number(raised[i]))),
      (error: unknown) => raises.forEach((r) => r.reject(error)),
    );
  }

  /** Counters beside the sessions (and the tokens' key, `#token-key`): a token (base64url) never contains `#`, so none meets one. */
  private counterKey(name: string): string {
    return `${this.prefix}#:${name}`;
  }

  async ping(): Promise<void> {
    await this.call(() => this.redis.ping());
  }

  async close(): Promise<void> {
    if (this.closed) return;
    // Reads asked for before the close are sent before QUIT, as every other command asked for before it.
    this.sendReads();
    this.closed = true;
    try {
      await this.redis.quit();
    } catch {
      // Already gone: nothing left to close.
      this.redis.disconnect();
    }
  }

  private async call<R>(command: () => Promise<R>): Promise<R> {
    if (this.closed) throw new SessionStoreUnavailableError('session store: closed');
    try {
      return await command();
    } catch (err) {
      throw new SessionStoreUnavailableError(`session store: ${this.url} failed (${reasonOf(err)})`, { cause: err });
    }
  }
}

/**
 * One connection attempt: a client that answered PING and the key of the store's tokens (every replica on this
 * Redis mints and recognises tokens with one key, the first to start made it), or the reason it did not.
 */
async function openClient(url: string, tokenKeyName: string): Promise<{ redis: Redis; tokenKey: Buffer }> {
  const redis = instrumentRedis(
    new Redis(url, {
      lazyConnect: true,
      connectTimeout: CONNECT_TIMEOUT_MS,
      // No reconnecting inside an attempt: connect() fails at once and connect's loop decides.
      retryStrategy: () => null,
      // Once running, a request fails after a couple of retries rather than waiting out an outage.
      maxRetriesPerRequest: 2,
      commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
      // Our PING is the readiness check; ioredis's own (INFO) would, on a peer that never answers,
      // outlive the attempt and leave a 2 s disconnect timer behind.
      enableReadyCheck: false,
      // Commands of concurrent requests issued in one tick go out in one write (decision 59): fewer syscalls.
      enableAutoPipelining: true,
    }),
  );
  // connect() itself rejects with a bare "Connection is closed."; the reason is in the error event.
  let socketError: unknown;
  const remember = (err: unknown) => (socketError ??= err);
  redis.on('error', remember);
  try {
    const key = await withDeadline(
      (async () => {
        await redis.connect();
        await redis.ping();
        return (await redis.eval(TOKEN_KEY_SCRIPT, 1, tokenKeyName, newTokenKey().toString('base64'))) as string;
      })(),
      ATTEMPT_DEADLINE_MS,
    );
    return { redis, tokenKey: Buffer.from(key, 'base64') };
  } catch (err) {
    // A peer that accepts and never answers times out one of two ways, whichever clock runs out first: the
    // attempt's deadline (ETIMEDOUT) or the PING's commandTimeout ("Command timed out"). One reason for both.
    const timedOut = (err as { code?: unknown }).code === 'ETIMEDOUT' || (err as { message?: unknown }).message === 'Command timed out';
    if (timedOut && (err as { code?: unknown }).code !== 'ETIMEDOUT') Object.assign(err as object, { code: 'ETIMEDOUT' });
    redis.on('error', () => undefined); // late socket errors of a client we are dropping
    // On an ended client, disconnect() would arm a 2 s timer for a stream that is already gone.
    if (redis.status !== 'end') redis.disconnect();
    throw timedOut ? err : (socketError ?? err);
  } finally {
    redis.off('error', remember);
  }
}

// Without a listener ioredis prints every connection error to stderr; log them once per outage instead.
function attachErrorLog(redis: Redis, url: string, logger: Logger | undefined): void {
  let failing = false;
  redis.on('error', (err: Error) => {
    if (failing) return;
    failing = true;
    logger?.warn({ url, reason: reasonOf(err) }, 'session store connection error');
  });
  redis.on('ready', () => {
    if (failing) logger?.info({ url }, 'session store reconnected');
    failing = false;
  });
}
