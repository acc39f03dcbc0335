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

interface Entry {
  // Stored serialised, as Redis would: callers never share objects with the store.
  json: string;
  expiresAt: number;
}

export interface MemorySessionStoreOptions extends SessionStoreOptions {
  /** How often expired sessions are dropped; expiry is also checked on every read. */
  sweepIntervalMs?: number;
}

/** The embedded adapter: the same sliding-TTL semantics as Redis, in one process's memory. */
export class MemorySessionStore implements SessionStore {
  readonly kind = 'memory' as const;
  private readonly entries = new Map<string, Entry>();
  private readonly counterEntries = new Map<string, { value: number; expiresAt: number }>();
  private readonly ttlMs: number;
  private readonly slackMs: number;
  private readonly prefix: string;
  private readonly now: () => number;
  private readonly sweeper: NodeJS.Timeout;
  private readonly tokens: TokenMinter;
  private closed = false;

  constructor(options: MemorySessionStoreOptions) {
    assertTtl(options.ttlSeconds);
    this.ttlMs = options.ttlSeconds * 1000;
    this.slackMs = slideSlackMs(options.ttlSeconds);
    this.prefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
    this.now = options.now ?? Date.now;
    this.tokens = tokenMinter(options.tokenKey ?? newTokenKey(), this.ttlMs, () => this.now());
    const interval = options.sweepIntervalMs ?? Math.min(this.ttlMs, 60_000);
    // unref: a sweep must never be what keeps the process (or a test run) alive.
    this.sweeper = setInterval(() => this.sweep(), interval).unref();
  }

  async get<T = SessionData>(token: string): Promise<T | null> {
    this.assertOpen();
    const key = this.prefix + token;
    const entry = this.entries.get(key);
    if (!entry) return null;
    const now = this.now();
    if (entry.expiresAt <= now) {
      this.entries.delete(key);
      return null;
    }
    // Slid as Redis slides it: only once it has lost more than the slack.
    if (entry.expiresAt - now < this.ttlMs - this.slackMs) entry.expiresAt = now + this.ttlMs;
    return JSON.parse(entry.json) as T;
  }

  async getWithCounter<T = SessionData>(token: string, field: string, counterPrefix: string) {
    const session = await this.get<T>(token);
    const name = (session as Record<string, unknown> | null)?.[field];
    return { session, counter: typeof name === 'string' ? this.counterNow(counterPrefix + name) : null };
  }

  async set(token: string, data: SessionData): Promise<void> {
    this.assertOpen();
    this.entries.set(this.prefix + token, { json: JSON.stringify(data), expiresAt: this.now() + this.ttlMs });
  }

  mintToken(tag?: string): string {
    return this.tokens.mint(tag);
  }

  minted(token: string): MintedToken | null {
    return this.tokens.minted(token);
  }

  async delete(token: string): Promise<void> {
    this.assertOpen();
    this.entries.delete(this.prefix + token);
  }

  async counter(name: string): Promise<number> {
    this.assertOpen();
    return this.counterNow(name);
  }

  async raise(name: string): Promise<number> {
    this.assertOpen();
    // Read and write with no await between them: concurrent raises all count.
    const value = this.counterNow(name) + 1;
    this.counterEntries.set(name, { value, expiresAt: this.now() + this.ttlMs });
    return value;
  }

  async ping(): Promise<void> {
    this.assertOpen();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    this.entries.clear();
    this.counterEntries.clear();
  }

  private counterNow(name: string): number {
    const entry = this.counterEntries.get(name);
    return entry && entry.expiresAt > this.now() ? entry.value : 0;
  }

  /** Drops expired sessions; public so tests with an injected clock can run it. */
  sweep(): void {
    const now = this.now();
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
    for (const [name, entry] of this.counterEntries) if (entry.expiresAt <= now) this.counterEntries.delete(name);
  }

  /** Sessions held, expired ones not yet swept included. */
  get size(): number {
    return this.entries.size;
  }

  /** Counters held, expired ones not yet swept included. */
  get counters(): number {
    return this.counterEntries.size;
  }

  private assertOpen(): void {
    if (this.closed) throw new SessionStoreUnavailableError('session store: closed');
  }
}
