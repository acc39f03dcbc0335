import { envKey, envUrl, failsWhenUnavailable, unavailableReason } from './engines';

describe('test engine harness', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  it('uses the URL an env var names', () => {
    process.env['DATABASE_URL'] = 'postgres://u:p@127.0.0.1:5432/db';
    expect(envUrl('postgres')).toBe('postgres://u:p@127.0.0.1:5432/db');
    expect(unavailableReason('postgres')).toBeUndefined();
  });

  it.each([
    ['postgres', 'DATABASE_URL', 'pglite://memory'],
    ['redis', 'REDIS_URL', 'memory'],
    ['kafka', 'KAFKA_BROKERS', 'memory'],
    ['meilisearch', 'MEILI_URL', 'embedded'],
  ] as const)('does not take the embedded placeholder of %s for a real engine', (engine, variable, placeholder) => {
    process.env[variable] = placeholder;
    expect(envUrl(engine)).toBeUndefined();
  });

  it('names the variable when neither it nor a Docker engine is there', () => {
    delete process.env['MEILI_URL'];
    process.env['TESTCONTAINERS'] = 'off';
    expect(unavailableReason('meilisearch')).toBe('MEILI_URL not set and no Docker engine for testcontainers');
  });

  it('takes the Meilisearch key from MEILI_MASTER_KEY, as tools/infra/up prints it', () => {
    process.env['MEILI_MASTER_KEY'] = 'k'.repeat(24);
    expect(envKey('meilisearch')).toBe('k'.repeat(24));
    delete process.env['MEILI_MASTER_KEY'];
    expect(envKey('meilisearch')).toBeUndefined();
    expect(envKey('postgres')).toBeUndefined();
  });

  it('fails rather than skips a suite whose engine is missing in CI only', () => {
    process.env['CI'] = 'true';
    expect(failsWhenUnavailable()).toBe(true);
    delete process.env['CI'];
    expect(failsWhenUnavailable()).toBe(false);
  });
});
