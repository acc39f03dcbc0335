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
  type WindowCount,
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

/** The key of the store's tokens (decision 134): the one already beside the sessions, else this one, kept. */
const TOKEN_KEY_SCRIPT = `
redis.call('SET', KEYS[1], ARGV[1], 'NX')
return redis.call('GET', KEYS[1])`;

/**
 * A command waiting for the turn's script (`RedisSessionStore.queue`): a session read with its counter (`read`),
 * a session write (`write`) or a counter's raise (`raise`), each on its one key.
 */
type PendingOp = { key: string; reject(error: unknown): void } & (
  | { kind: 'read'; field: string; counterKeyPrefix: string; resolve(value: [string | null, string | null]): void }
  | { kind: 'write'; json: string; resolve(): void }
  | { kind: 'raise'; resolve(value: number): void }
  | { kind: 'window'; windowSeconds: number; unlessKey: string; resolve(value: WindowCount | null): void }
);

/** What each kind of command is called in the error of a command Redis refused. */
const OP_NAMES: Record<PendingOp['kind'], string> = {
  read: 'session read',
  write: 'session write',
  raise: 'counter raise',
  window: 'window count',
};

/**
 * The session store's commands asked for in one turn of the event loop, in the order they were asked, in one round
 * trip (decisions 89, 97, 177): KEYS are their keys, one each; ARGV[1] the TTL in ms, ARGV[2] the slack in ms, ARGV[3]
 * the TTL in seconds, then for the i-th key its kind (ARGV[1 + 3i]) and two arguments (ARGV[2 + 3i], ARGV[3 + 3i]);
 * the answer has two places a key (false where nothing).
 * - `r` reads the session with the counter one of its fields names (its field, its counter keys' prefix): the session
 *   and the counter. A session's TTL is slid only once it has lost more than the slack (a write propagated to replicas
 *   and the AOF, so not at every read). A counter's key comes from the session's content, so it is not among KEYS:
 *   fine on one Redis (with replicas), not on a Redis Cluster, where the counter would have to share the session's
 *   hash slot.
 * - `w` writes the session (its JSON) with the TTL, as SET … PX does.
 * - `i` raises the counter by one and restarts its TTL (INCR and EXPIRE together, so a counter never lives on without
 *   one): its new value. A key named twice is raised twice.
 * - `l` counts one in a fixed window of its seconds (`windowCount`), as rate-limiter-flexible's `RateLimiterRedis`
 *   consumes a point (the same key and script, so replicas of either kind count together): the count and the
 *   window's milliseconds left. With a session's key (its second argument, `windowCountUnlessStored`), only when
 *   that session is not stored (else nothing is counted and its places are false); not among KEYS either.
 * Every Redis command runs with `redis.pcall` (decision 177): when Redis refuses one (WRONGTYPE, OOM, READONLY), its
 * key's command stops there and its two places are Redis's error (an error reply inside the answer) and the refused
 * command's name; the other keys' commands still run and answer. With `redis.call` the refusal ended the script: the
 * commands before it had run, yet the whole turn failed. An error of the script itself still fails the whole turn.
 */
const TURN_SCRIPT = `
local ttl = tonumber(ARGV[1])
local slack = tonumber(ARGV[2])
local function call(command, ...)
  local answer = redis.pcall(command, ...)
  if type(answer) == 'table' and answer.err then error({ refused = answer, command = command }) end
  return answer
end
local function run(i, key)
  local kind = ARGV[1 + 3 * i]
  local first = false
  local second = false
  if kind == 'r' then
    first = call('GET', key)
    if first then
      if call('PTTL', key) < ttl - slack then call('PEXPIRE', key, ttl) end
      local field = ARGV[2 + 3 * i]
      if field ~= '' then
        local ok, data = pcall(cjson.decode, first)
        local name = ok and type(data) == 'table' and data[field]
        if type(name) == 'string' then second = call('GET', ARGV[3 + 3 * i] .. name) or '0' end
      end
    end
  elseif kind == 'w' then
    call('SET', key, ARGV[2 + 3 * i], 'PX', ttl)
    first = 1
  elseif kind == 'l' then
    local window = ARGV[2 + 3 * i]
    local unless = ARGV[3 + 3 * i]
    if unless ~= '' and call('EXISTS', unless) == 1 then return false, false end
    call('SET', key, 0, 'EX', window, 'NX')
    first = call('INCRBY', key, 1)
    second = call('PTTL', key)
    if second == -1 then
      call('EXPIRE', key, window)
      second = 1000 * tonumber(window)
    end
  else
    first = call('INCR', key)
    call('EXPIRE', key, ARGV[3])
  end
  return first, second
end
local out = {}
for i, key in ipairs(KEYS) do
  local ok, first, second = pcall(run, i, key)
  if not ok then
    if type(first) ~= 'table' or not first.refused then error(first, 0) end
    first, second = first.refused, first.command
  end
  out[2 * i - 1] = first
  out[2 * i] = second
end
return out`;

/** The real adapter: a read slides the TTL in the same round trip (a script), once the session lost more than the slack. */
export class RedisSessionStore implements SessionStore {
  readonly kind = 'redis' as const;
  private closed = false;

  private readonly slackMs: number;
  /** The reads, writes and raises asked for in this turn of the event loop, sent together as one script (decision 177). */
  private pending: PendingOp[] = [];

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
    // The number of keys comes first in each call: one script runs the commands of a turn together, in their order.
    // Sent by its SHA-1 (EVALSHA, once EVAL after a script flush), not as its text.
    redis.defineCommand('sessionTurn', { lua: TURN_SCRIPT });
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
    const [json, counter] = await new Promise<[string | null, string | null]>((resolve, reject) =>
      this.queue({ kind: 'read', key: this.prefix + token, field, counterKeyPrefix: this.counterKey(counterPrefix), resolve, reject }),
    );
    return { session: json === null ? null : (JSON.parse(json) as T), counter: counter === null ? null : Number(counter) };
  }

  /** Queues a command for the turn's script, sent once the turn's callbacks have run (`sendTurn`). */
  private queue(op: PendingOp): void {
    if (this.pending.push(op) === 1) setImmediate(() => this.sendTurn());
  }

  /**
   * Sends the commands queued so far as one script (EVALSHA, once EVAL after a script flush), in the order they were
   * asked for. Every command outside it sends them first, so commands still reach Redis in the order they were asked
   * for (a write asked for after a read never overtakes it).
   */
  private sendTurn(): void {
    const ops = this.pending;
    if (!ops.length) return;
    this.pending = [];
    const redis = this.redis as Redis & {
      sessionTurn(keys: number, ...args: Array<string | number>): Promise<Array<string | number | Error | null>>;
    };
    const args: Array<string | number> = ops.map((op) => op.key);
    args.push(this.ttlSeconds * 1000, this.slackMs, this.ttlSeconds);
    for (const op of ops) {
      if (op.kind === 'read') args.push('r', op.field, op.counterKeyPrefix);
      else if (op.kind === 'write') args.push('w', op.json, '');
      else if (op.kind === 'window') args.push('l', op.windowSeconds, op.unlessKey);
      else args.push('i', '', '');
    }
    this.call(() => redis.sessionTurn(ops.length, ...args)).then(
      (answers) =>
        ops.forEach((op, i) => {
          const first = answers[2 * i] ?? null;
          // Redis refused one of this command's Redis commands (its error, then that command's name): it fails alone.
          if (first instanceof Error) op.reject(this.refused(op, String(answers[2 * i + 1]), first));
          else if (op.kind === 'read') op.resolve([first === null ? null : String(first), (answers[2 * i + 1] as string | null) ?? null]);
          else if (op.kind === 'write') op.resolve();
          else if (op.kind === 'window') op.resolve(first === null ? null : { count: Number(first), msLeft: Number(answers[2 * i + 1]) });
          else op.resolve(Number(first));
        }),
      (error: unknown) => ops.forEach((op) => op.reject(error)),
    );
  }

  /** The error of a turn's command Redis refused (WRONGTYPE, OOM, READONLY): which command, which of its Redis commands, why. */
  private refused(op: PendingOp, command: string, error: Error): SessionStoreUnavailableError {
    return new SessionStoreUnavailableError(`session store: ${this.url} refused a ${OP_NAMES[op.kind]} (${command}: ${error.message})`, {
      cause: error,
    });
  }

  async set(token: string, data: SessionData): Promise<void> {
    // With the turn's reads and raises (decision 177): a new session's write rides with the reads of the requests
    // that arrived beside it.
    const json = JSON.stringify(data);
    await new Promise<void>((resolve, reject) => this.queue({ kind: 'write', key: this.prefix + token, json, resolve, reject }));
  }

  mintToken(tag?: string): string {
    return this.tokens.mint(tag);
  }

  minted(token: string): MintedToken | null {
    return this.tokens.minted(token);
  }

  async delete(token: string): Promise<void> {
    this.sendTurn();
    await this.call(() => this.redis.del(this.prefix + token));
  }

  async counter(name: string): Promise<number> {
    this.sendTurn();
    return Number((await this.call(() => this.redis.get(this.counterKey(name)))) ?? 0);
  }

  raise(name: string): Promise<number> {
    // One command for every command asked for in this turn (decisions 89, 177): the changes a cart batch answered
    // together (decision 78) resume in one turn, each raising its selection's counter before it answers, and the
    // requests that arrived meanwhile read their sessions in the same script.
    return new Promise<number>((resolve, reject) => this.queue({ kind: 'raise', key: this.counterKey(name), resolve, reject }));
  }

  windowCount(key: string, windowSeconds: number): Promise<WindowCount> {
    // With the turn's reads, writes and raises (decision 182): a new visitor's admission rides with them. Without a
    // session's key the script always counts: never null.
    return this.windowOp(key, windowSeconds, '') as Promise<WindowCount>;
  }

  windowCountUnlessStored(key: string, windowSeconds: number, token: string): Promise<WindowCount | null> {
    // Asked beside the token's read (decision 187): a fresh visitor's first change is admitted in its read's turn.
    return this.windowOp(key, windowSeconds, this.prefix + token);
  }

  private windowOp(key: string, windowSeconds: number, unlessKey: string): Promise<WindowCount | null> {
    return new Promise<WindowCount | null>((resolve, reject) =>
      this.queue({ kind: 'window', key, windowSeconds, unlessKey, resolve, reject }),
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
    // Commands asked for before the close are sent before QUIT, as every other command asked for before it.
    this.sendTurn();
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
