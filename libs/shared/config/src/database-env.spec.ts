import { z } from 'zod';
import { databaseEnv, loadConfig } from './config';

const schema = z.object(databaseEnv('cart'));
const url = { DATABASE_URL: 'postgres://u:p@db/shop' };

describe('a service database from the environment', () => {
  it('when only DATABASE_URL is set, has a pool of 10, 5 s acquire and statement time-outs, prepared statements and the service name as its schema', () => {
    expect(loadConfig(schema, url)).toEqual({
      ...url,
      DB_POOL_MAX: 10,
      DB_ACQUIRE_TIMEOUT_MS: 5000,
      DB_QUERY_TIMEOUT_MS: 5000,
      DB_PREPARED_STATEMENTS: true,
      DATABASE_SCHEMA: 'cart',
    });
  });

  it('turns prepared statements off with DB_PREPARED_STATEMENTS=false or 0 (a transaction-mode PgBouncer; decision 179)', () => {
    expect(loadConfig(schema, { ...url, DB_PREPARED_STATEMENTS: 'false' }).DB_PREPARED_STATEMENTS).toBe(false);
    expect(loadConfig(schema, { ...url, DB_PREPARED_STATEMENTS: '0' }).DB_PREPARED_STATEMENTS).toBe(false);
    expect(() => loadConfig(schema, { ...url, DB_PREPARED_STATEMENTS: 'off' })).toThrow(/^config: DB_PREPARED_STATEMENTS /);
  });

  it('reads DB_POOL_MAX from 1 to 1000', () => {
    expect(loadConfig(schema, { ...url, DB_POOL_MAX: '1' }).DB_POOL_MAX).toBe(1);
    expect(loadConfig(schema, { ...url, DB_POOL_MAX: '25' }).DB_POOL_MAX).toBe(25);
    expect(loadConfig(schema, { ...url, DB_POOL_MAX: '1000' }).DB_POOL_MAX).toBe(1000);
  });

  it.each(['0', '1001', '2.5', 'ten', '-3'])('refuses DB_POOL_MAX=%s, naming the variable and the value', (value) => {
    expect(() => loadConfig(schema, { ...url, DB_POOL_MAX: value })).toThrow(new RegExp(`^config: DB_POOL_MAX .*\\(got "${value}"\\)$`));
  });
});
