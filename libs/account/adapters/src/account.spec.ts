import { createDbEngine, type DbEngine } from '@commerce/shared-db';
import { uniqueName } from '@commerce/shared-testing';
import { accountContract } from './account.contract';
import { resetMailContract } from './reset-mail.contract';
import { ARGON2_DEFAULTS, createArgon2Hasher } from './argon2.password-hasher';
import { buildAccountService } from './account.service';
import { createLogger } from '@commerce/shared-logging';
import { createMemoryBus } from '@commerce/shared-bus';
import { AccountUpsertReceived } from '@commerce/erp-contracts';
import { hashArgon2id } from '@commerce/account-contracts';
import { verify as argon2Verify } from '@node-rs/argon2';

// argon2's verify, passed through and counted: the login-timing test asserts the KDF calls each login makes.
jest.mock('@node-rs/argon2', () => {
  const actual = jest.requireActual<typeof import('@node-rs/argon2')>('@node-rs/argon2');
  return { ...actual, verify: jest.fn(actual.verify) };
});
const kdfVerify = jest.mocked(argon2Verify);

let engine: DbEngine;
afterAll(() => engine?.close());

accountContract('PGlite', async () => {
  engine ??= await createDbEngine('pglite://memory');
  return engine.forSchema(uniqueName('account'));
});

resetMailContract('PGlite', async () => (engine ??= await createDbEngine('pglite://memory')).forSchema(uniqueName('account_mail')));

describe('login timing with the production argon2id cost', () => {
  // What an attacker times is the KDF: a login that hashes less for an unknown e-mail (no hash, or a dummy hash
  // of a lower cost) tells the e-mail apart. So this asserts the KDF work itself, per login, not wall time (a
  // loaded 2-core machine stretched one path's medians past any tolerance, decision 94): every login calls
  // argon2's verify exactly once, on a hash of the production cost, and spends alike CPU (the process's CPU
  // time, which counts libuv's pool where argon2 runs, and not the time spent waiting for a core).
  it('does the same KDF work for an unknown e-mail, a wrong password and a buyer who never logged in: one argon2id verify at the production cost each, CPU medians within a factor of 2', async () => {
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

      type Samples = { cpuMs: number[]; kdf: Set<string> };
      const samples = (): Samples => ({ cpuMs: [], kdf: new Set() });
      const unknown = samples();
      const wrong = samples();
      const buyer = samples();
      // The argon2 verify calls a login made, each as the cost its hash names (`m=…,t=…,p=…`), in one string.
      const costs = () =>
        kdfVerify.mock.calls
          .map(([hash]) => /^\$argon2id\$v=19\$(m=\d+,t=\d+,p=\d+)\$/.exec(String(hash))?.[1] ?? 'not argon2id')
          .join(' ');
      const login = async (email: string, into: Samples) => {
        kdfVerify.mockClear();
        const before = process.cpuUsage();
        expect(await service.client.verifyLogin(email, 'wrong horse battery')).toBeNull();
        const used = process.cpuUsage(before);
        into.cpuMs.push((used.user + used.system) / 1000);
        into.kdf.add(costs());
      };
      // Interleaved, in a new random order each round, so a slower moment of the machine (or a place in
      // the round) falls on all three alike.
      for (let i = 0; i < 80; i++) {
        const round = [
          () => login(`nobody-${i}@example.com`, unknown),
          () => login('timing@example.com', wrong),
          () => login('buyer-timing@example.com', buyer),
        ].sort(() => Math.random() - 0.5);
        for (const run of round) await run();
      }
      const production = `m=${ARGON2_DEFAULTS.memoryKiB},t=${ARGON2_DEFAULTS.iterations},p=${ARGON2_DEFAULTS.parallelism}`;
      expect({ unknown: [...unknown.kdf], wrong: [...wrong.kdf], buyer: [...buyer.kdf] }).toEqual({
        unknown: [production],
        wrong: [production],
        buyer: [production],
      });
      // The same calls could still differ in work (a verify that returns early on the dummy hash): the CPU a
      // login costs, median of 80 each. Skipping the hash costs ~1/50 of a login, a tenth of the cost ~1/10:
      // a factor of 2 either way is far from both, and far above what load does to CPU time.
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      const medians = { unknown: median(unknown.cpuMs), wrong: median(wrong.cpuMs), buyer: median(buyer.cpuMs) };
      for (const known of ['wrong', 'buyer'] as const) {
        const ratio = medians.unknown / medians[known];
        expect({ medians, [`unknown/${known}`]: ratio > 0.5 && ratio < 2 ? 'within 0.5-2' : ratio }).toEqual({
          medians,
          [`unknown/${known}`]: 'within 0.5-2',
        });
      }
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
