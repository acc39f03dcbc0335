import { LoginRateLimitedError } from './backoffice.errors';

export interface LoginThrottleOptions {
  /** Failed logins from one client address within `windowMs` before it must wait (default 10). */
  perAddress?: number;
  /** Failed logins for one user name, from any address, within `windowMs` (default 20). */
  perUser?: number;
  windowMs?: number;
  /** Most addresses and user names tracked at once; the oldest are forgotten first (default 10,000). */
  maxTracked?: number;
  now?: () => number;
}

interface Window {
  failures: number;
  resetAt: number;
}

/**
 * Counts failed SOAP logins per client address and per user name (known or not: an unknown name counts
 * the same, so the limit tells nothing either). Over a limit, a login is refused before any password is
 * hashed until the window ends. A user's limit does not lock out an address that logged in as that
 * user successfully within the last day, so a stranger guessing the ERP's password cannot stop the ERP.
 * In memory, per process: with N replicas an address gets up to N times the limit.
 */
export class LoginThrottle {
  private readonly perAddress: number;
  private readonly perUser: number;
  private readonly windowMs: number;
  private readonly maxTracked: number;
  private readonly now: () => number;
  private readonly addresses = new Map<string, Window>();
  private readonly users = new Map<string, Window>();
  /** `user\0address` → when that address last logged in as that user. */
  private readonly trusted = new Map<string, number>();

  constructor(options: LoginThrottleOptions = {}) {
    this.perAddress = options.perAddress ?? 10;
    this.perUser = options.perUser ?? 20;
    this.windowMs = options.windowMs ?? 60_000;
    this.maxTracked = options.maxTracked ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  /** Throws LoginRateLimitedError (with the seconds to wait) when the address or the user is over its limit. */
  check(address: string, username: string): void {
    const now = this.now();
    const waits: number[] = [];
    const byAddress = this.live(this.addresses, address, now);
    if (byAddress && byAddress.failures >= this.perAddress) waits.push(byAddress.resetAt - now);
    const byUser = this.live(this.users, username, now);
    if (byUser && byUser.failures >= this.perUser && !this.isTrusted(username, address, now)) waits.push(byUser.resetAt - now);
    if (waits.length > 0) throw new LoginRateLimitedError(Math.max(1, Math.ceil(Math.max(...waits) / 1000)));
  }

  failed(address: string, username: string): void {
    const now = this.now();
    this.count(this.addresses, address, now);
    this.count(this.users, username, now);
  }

  succeeded(address: string, username: string): void {
    const key = `${username}\0${address}`;
    this.trusted.delete(key);
    this.trusted.set(key, this.now());
    this.bound(this.trusted);
  }

  private isTrusted(username: string, address: string, now: number): boolean {
    const at = this.trusted.get(`${username}\0${address}`);
    return at !== undefined && now - at < 86_400_000;
  }

  private live(map: Map<string, Window>, key: string, now: number): Window | undefined {
    const w = map.get(key);
    if (w && w.resetAt <= now) {
      map.delete(key);
      return undefined;
    }
    return w;
  }

  private count(map: Map<string, Window>, key: string, now: number): void {
    const w = this.live(map, key, now);
    if (w) w.failures += 1;
    else map.set(key, { failures: 1, resetAt: now + this.windowMs });
    this.bound(map);
  }

  private bound(map: Map<string, unknown>): void {
    while (map.size > this.maxTracked) map.delete(map.keys().next().value as string);
  }
}
