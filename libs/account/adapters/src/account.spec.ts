import { createDbEngine, type DbEngine } from '@commerce/shared-db';
import { uniqueName } from '@commerce/shared-testing';
import { accountContract } from './account.contract';
import { ARGON2_DEFAULTS, createArgon2Hasher } from './argon2.password-hasher';

let engine: DbEngine;
afterAll(() => engine?.close());

accountContract('PGlite', async () => {
  engine = await createDbEngine('pglite://memory');
  return engine.forSchema(uniqueName('account'));
});

describe('argon2id hasher', () => {
  it('hashes with the production floor by default: argon2id, 19 MiB, t = 2, p = 1', async () => {
    const hasher = createArgon2Hasher();
    const hash = await hasher.hash('correct horse battery');
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(ARGON2_DEFAULTS).toEqual({ memoryKiB: 19456, iterations: 2, parallelism: 1 });
    expect(await hasher.verify(hash, 'correct horse battery')).toBe(true);
    expect(await hasher.verify(hash, 'correct horse batterY')).toBe(false);
    expect(await hasher.verify('not a hash', 'x')).toBe(false);
  });
});
