import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDb, createDbEngine, DbUnavailableError, maskUrl, pgliteLocation } from './db-engine';

describe('createDbEngine', () => {
  it('when Postgres does not answer, fails fast with one line naming the masked URL and the cause', async () => {
    const started = Date.now();
    const error = await createDbEngine('postgres://commerce:secret@127.0.0.1:1/commerce').catch((e: unknown) => e);

    expect(error).toBeInstanceOf(DbUnavailableError);
    expect((error as Error).message).toBe('database: cannot reach postgres://commerce:***@127.0.0.1:1/commerce (ECONNREFUSED)');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('refuses a URL of an unknown engine without echoing its password', async () => {
    await expect(createDbEngine('mysql://root:secret@localhost/db')).rejects.toThrow(
      'database: unsupported URL mysql://root:***@localhost/db (expected postgres://, postgresql:// or pglite://)',
    );
  });

  it('keeps a PGlite database on disk in the named folder, creating it, across a reopen', async () => {
    const root = mkdtempSync(join(tmpdir(), 'shared-db-'));
    const folder = join(root, 'nested', 'pg');
    try {
      const first = await createDbEngine(`pglite://${folder}`);
      expect(first.engine).toBe('pglite');
      await first.knex.raw('create table kept (label text)');
      await first.knex('kept').insert({ label: 'still here' });
      await first.close();
      expect(existsSync(folder)).toBe(true);

      const second = await createDbEngine(`pglite://${folder}`);
      expect(await second.knex('kept').pluck('label')).toEqual(['still here']);
      await second.close();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 60_000);

  it('refuses a schema name that would need quoting', () => {
    expect(() => createDb({} as never, 'pglite', 'Bad-Name')).toThrow('invalid schema name "Bad-Name"');
  });
});

describe('maskUrl', () => {
  it('hides the password and keeps the rest', () => {
    expect(maskUrl('postgresql://u:p%40ss@db:5432/x?sslmode=require')).toBe('postgresql://u:***@db:5432/x?sslmode=require');
  });

  it('leaves a URL without a password as it is', () => {
    expect(maskUrl('postgres://db:5432/x')).toBe('postgres://db:5432/x');
    expect(maskUrl('postgres://user@db/x')).toBe('postgres://user@db/x');
  });
});

describe('pgliteLocation', () => {
  it('reads memory, relative and absolute folders', () => {
    expect(pgliteLocation('pglite://memory')).toBe('memory');
    expect(pgliteLocation('pglite://./data/pg')).toBe(join(process.cwd(), 'data', 'pg'));
    expect(pgliteLocation('pglite:///var/lib/pg')).toBe('/var/lib/pg');
  });
});
