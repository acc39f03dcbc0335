import { spawnSync } from 'node:child_process';

// "A bad config value or an unreachable engine gives one clear line, not a stack trace" (issue 2).
function start(app: string, env: Record<string, string>) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', `apps/${app}/src/main.ts`], {
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: result.status, stderr: result.stderr.trim(), stdout: result.stdout.trim() };
}

describe('a service that cannot start', () => {
  it('names a malformed variable in one line and exits 1', () => {
    const r = start('cart', { DATABASE_URL: 'mysql://nope', STORE_CONFIG: 'infra/config/demo-store.json' });
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^cart: config: DATABASE_URL must be a postgres/);
  }, 60_000);

  it('refuses to start the cart without a store configuration rather than use the demo one', () => {
    const r = start('cart', { DATABASE_URL: 'pglite://memory' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^cart: config: STORE_CONFIG /);
    expect(r.stderr.split('\n')).toHaveLength(1);
  }, 60_000);

  it('names a missing variable in one line and exits 1', () => {
    const r = start('checkout-api', { REDIS_URL: 'memory', STORE_CONFIG: 'infra/config/demo-store.json' });
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^checkout-api: config: .*CATALOG_URL/);
  }, 60_000);

  it('names an unreachable database in one line, password masked, and exits 1', () => {
    const r = start('order', {
      DATABASE_URL: 'postgres://commerce:secret@127.0.0.1:1/commerce',
      KAFKA_BROKERS: 'memory',
      STORE_CONFIG: 'infra/config/demo-store.json',
      PAYMENT_URL: 'http://127.0.0.1:1',
      CATALOG_URL: 'http://127.0.0.1:1',
      CART_URL: 'http://127.0.0.1:1',
    });
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^order: database: cannot reach postgres:\/\/commerce:\*\*\*@127\.0\.0\.1:1\/commerce/);
    expect(r.stderr).not.toContain('secret');
  }, 60_000);

  it('names an unreachable session store in one line and exits 1', () => {
    const r = start('checkout-api', {
      REDIS_URL: 'redis://127.0.0.1:1',
      STORE_CONFIG: 'infra/config/demo-store.json',
      CATALOG_URL: 'http://127.0.0.1:1',
      CART_URL: 'http://127.0.0.1:1',
      ACCOUNT_URL: 'http://127.0.0.1:1',
      ORDER_URL: 'http://127.0.0.1:1',
      PAYMENT_URL: 'http://127.0.0.1:1',
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('checkout-api: session store: cannot reach redis://127.0.0.1:1 (ECONNREFUSED)');
  }, 60_000);

  it('names a store configuration that does not validate', () => {
    const r = start('all-in-one', { STORE_CONFIG: 'package.json', DATABASE_URL: 'pglite://memory' });
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^all-in-one: config: package.json: /);
  }, 60_000);
});
