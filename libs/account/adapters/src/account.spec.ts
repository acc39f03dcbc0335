import { createDbEngine, type DbEngine } from '@commerce/shared-db';
import { uniqueName } from '@commerce/shared-testing';
import { accountContract } from './account.contract';
import { resetMailContract } from './reset-mail.contract';
import { ARGON2_DEFAULTS, createArgon2Hasher } from './argon2.password-hasher';
import { buildAccountService } from './account.service';

let engine: DbEngine;
afterAll(() => engine?.close());

accountContract('PGlite', async () => {
  engine ??= await createDbEngine('pglite://memory');
  return engine.forSchema(uniqueName('account'));
});

resetMailContract('PGlite', async () => (engine ??= await createDbEngine('pglite://memory')).forSchema(uniqueName('account_mail')));

describe('login timing with the production argon2id cost', () => {
  it('costs the same for an unknown e-mail as for a wrong password: medians within 5 ms over 200 tries each', async () => {
    const service = await buildAccountService({
      db: engine.forSchema(uniqueName('account_timing')),
      mailer: { send: async () => undefined },
    });
    await service.client.register({ email: 'timing@example.com', password: 'correct horse battery' });
    const unknown: number[] = [];
    const wrong: number[] = [];
    const time = async (email: string, into: number[]) => {
      const start = process.hrtime.bigint();
      expect(await service.client.verifyLogin(email, 'wrong horse battery')).toBeNull();
      into.push(Number(process.hrtime.bigint() - start) / 1e6);
    };
    // Interleaved, so a slower moment of the machine falls on both.
    for (let i = 0; i < 200; i++) {
      await time(`nobody-${i}@example.com`, unknown);
      await time('timing@example.com', wrong);
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    expect(Math.abs(median(unknown) - median(wrong))).toBeLessThan(5);
  }, 120_000);
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
