import { createDbEngine, type DbEngine } from '@commerce/shared-db';
import { uniqueName } from '@commerce/shared-testing';
import { accountContract } from './account.contract';
import { resetMailContract } from './reset-mail.contract';
import { ARGON2_DEFAULTS, createArgon2Hasher } from './argon2.password-hasher';
import { buildAccountService } from './account.service';
import { createLogger } from '@commerce/shared-logging';
import { createMemoryBus } from '@commerce/shared-bus';
import { AccountUpsertReceived } from '@commerce/backoffice-contracts';
import { hashArgon2id } from '@commerce/account-contracts';

let engine: DbEngine;
afterAll(() => engine?.close());

accountContract('PGlite', async () => {
  engine ??= await createDbEngine('pglite://memory');
  return engine.forSchema(uniqueName('account'));
});

resetMailContract('PGlite', async () => (engine ??= await createDbEngine('pglite://memory')).forSchema(uniqueName('account_mail')));

describe('login timing with the production argon2id cost', () => {
  it('costs the same for an unknown e-mail, a wrong password and a buyer who never logged in: medians within 5 ms (or a tenth of a login) over 200 tries each', async () => {
    const db = (engine ??= await createDbEngine('pglite://memory')).forSchema(uniqueName('account_timing'));
    const logger = createLogger('account-timing-test', 'silent');
    const bus = createMemoryBus({ logger });
    const service = await buildAccountService({ db, mailer: { send: async () => undefined }, logger, bus });
    await service.start();
    try {
      await service.client.register({ email: 'timing@example.com', password: 'correct horse battery' });
      // A buyer as accounts_Update delivers it: hashed by backoffice-soap with the account service's cost (decision 54).
      const passwordhash = await hashArgon2id('buyer horse battery', ARGON2_DEFAULTS);
      await bus.publish([
        AccountUpsertReceived.envelopeOf({ id: 'A-timing', buyers: [{ id: 'B-timing', email: 'buyer-timing@example.com', passwordhash }] }),
      ]);
      const storedHash = async () => {
        const row = await db.table('customers').where({ external_key: 'buyer:B-timing' }).first();
        return row
          ? ((await db.table('credentials').where({ customer_id: row.id }).first())?.password_hash as string | undefined)
          : undefined;
      };
      const until = Date.now() + 15_000;
      while (!(await storedHash()) && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
      expect(await storedHash()).toBe(passwordhash);

      const unknown: number[] = [];
      const wrong: number[] = [];
      const buyer: number[] = [];
      const time = async (email: string, into: number[]) => {
        const start = process.hrtime.bigint();
        expect(await service.client.verifyLogin(email, 'wrong horse battery')).toBeNull();
        into.push(Number(process.hrtime.bigint() - start) / 1e6);
      };
      // Interleaved, in a new random order each round, so a slower moment of the machine (or a place in
      // the round) falls on all three alike.
      for (let i = 0; i < 200; i++) {
        const round = [
          () => time(`nobody-${i}@example.com`, unknown),
          () => time('timing@example.com', wrong),
          () => time('buyer-timing@example.com', buyer),
        ].sort(() => Math.random() - 0.5);
        for (const run of round) await run();
      }
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      const medians = { unknown: median(unknown), wrong: median(wrong), buyer: median(buyer) };
      // Within 5 ms, or a tenth of a login where a loaded machine stretches every hash (a login that skipped
      // the hash for an unknown e-mail would differ by the whole hash, not by a tenth of it).
      const tolerance = Math.max(5, medians.wrong / 10);
      expect({ medians, wrong: Math.abs(medians.unknown - medians.wrong) < tolerance }).toMatchObject({ wrong: true });
      expect({ medians, buyer: Math.abs(medians.unknown - medians.buyer) < tolerance }).toMatchObject({ buyer: true });
      // Wrong passwords left the buyer as it was; the right one logs in without a rehash (the same cost already).
      expect(await storedHash()).toBe(passwordhash);
      expect(await service.client.verifyLogin('buyer-timing@example.com', 'buyer horse battery')).toMatchObject({
        address: { email: 'buyer-timing@example.com' },
      });
      expect(await storedHash()).toBe(passwordhash);
    } finally {
      await service.stop();
      await bus.close();
    }
  }, 240_000);
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
    // A hash of another cost, or a buyer's scrypt hash from before decision 54, is replaced at the next login.
    expect(hasher.needsRehash(hash)).toBe(false);
    expect(hasher.needsRehash(await createArgon2Hasher({ memoryKiB: 1024, iterations: 1, parallelism: 1 }).hash('x'))).toBe(true);
    expect(hasher.needsRehash('scrypt$ln=15,r=8,p=3$c2FsdA==$aGFzaA==')).toBe(true);
  });
});
