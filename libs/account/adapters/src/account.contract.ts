import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { bodyParser } from '@koa/bodyparser';
import type { Db } from '@commerce/shared-db';
import { createAccountHttpClient, type AccountClient } from '@commerce/account-contracts';
import { buildAccountService, type AccountService } from './account.service';

/** Cheap argon2id for tests (the production floor is the default of buildAccountService). */
export const TEST_ARGON2 = { memoryKiB: 1024, iterations: 1, parallelism: 1 };

let seq = 0;
const email = () => `customer-${process.pid}-${Date.now()}-${++seq}@example.com`;
const GOOD = 'correct horse battery';

/** The account service's behaviour through its client, in process and over its internal HTTP API; PGlite (unit) and Postgres (int). */
export function accountContract(name: string, db: () => Promise<Db>) {
  describe(`account service on ${name}`, () => {
    let service: AccountService;
    let server: Server;
    const clients: Record<string, AccountClient> = {};

    beforeAll(async () => {
      service = await buildAccountService({ db: await db(), argon2: TEST_ARGON2 });
      const app = new Koa();
      app.use(bodyParser());
      app.use(service.router.routes()).use(service.router.allowedMethods());
      server = createServer(app.callback());
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      clients['in process'] = service.client;
      clients['over HTTP'] = createAccountHttpClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    }, 60_000);
    afterAll(() => new Promise((r) => server?.close(r)));

    describe.each(['in process', 'over HTTP'])('%s', (kind) => {
      const client = () => clients[kind]!;

      it('registers a customer with exactly the address fields, the missing ones empty', async () => {
        const e = email();
        const customer = await client().register({ email: e, password: GOOD, firstName: 'Ada', country: 'se' });
        expect(customer.address).toEqual({
          email: e,
          firstName: 'Ada',
          lastName: '',
          address1: '',
          address2: '',
          city: '',
          state: '',
          country: 'SE',
          phoneNumber: '',
          zipCode: '',
        });
        expect(await client().getCustomer(customer.id)).toEqual(customer);
      });

      it('when the e-mail is registered (in any case), answers 409 with errors.email', async () => {
        const e = email();
        await client().register({ email: e, password: GOOD });
        await expect(client().register({ email: e.toUpperCase(), password: GOOD })).rejects.toMatchObject({
          kind: 'conflict',
          fields: { email: 'already registered' },
        });
      });

      it.each([
        ['shorter than 8 characters', 'abc1234'],
        ['a common password', 'Password123'],
        ['the e-mail itself', '@self'],
        ['longer than 128 characters', 'x'.repeat(100) + 'y'.repeat(29)],
      ])('refuses a password %s with 406 errors.password', async (_what, password) => {
        const e = email();
        await expect(client().register({ email: e, password: password === '@self' ? e : password })).rejects.toMatchObject({
          kind: 'not_acceptable',
          fields: { password: 'not valid' },
        });
      });

      it('accepts a long passphrase with spaces and no composition rules', async () => {
        await expect(client().register({ email: email(), password: 'all lower case words here' })).resolves.toHaveProperty('id');
      });

      it('answers 400 naming the field for a malformed e-mail', async () => {
        await expect(client().register({ email: 'not-an-email', password: GOOD })).rejects.toMatchObject({
          kind: 'invalid',
          fields: { email: expect.any(String) },
        });
      });

      it('verifies a login by the right password only, and answers null alike for an unknown e-mail', async () => {
        const e = email();
        const customer = await client().register({ email: e, password: GOOD });
        expect(await client().verifyLogin(e.toUpperCase(), GOOD)).toEqual(customer);
        expect(await client().verifyLogin(e, 'wrong horse battery')).toBeNull();
        expect(await client().verifyLogin(email(), GOOD)).toBeNull();
        expect(await client().verifyLogin('', '')).toBeNull();
      });

      it('updates the address, keeping the fields not given', async () => {
        const c = await client().register({ email: email(), password: GOOD, firstName: 'Ada' });
        const updated = await client().updateAddress(c.id, { city: 'Stockholm', zipCode: '111 22' });
        expect(updated.address).toMatchObject({ firstName: 'Ada', city: 'Stockholm', zipCode: '111 22', email: c.address.email });
        expect(await client().getCustomer(c.id)).toEqual(updated);
        await expect(client().updateAddress(c.id, { email: 'x@example.com' } as never)).rejects.toMatchObject({ kind: 'invalid' });
      });

      it('changes the e-mail, and refuses one another customer has with 409 errors.newEmail', async () => {
        const a = await client().register({ email: email(), password: GOOD });
        const b = await client().register({ email: email(), password: GOOD });
        const next = email();
        expect((await client().changeEmail(a.id, next)).address.email).toBe(next);
        expect(await client().verifyLogin(next, GOOD)).toMatchObject({ id: a.id });
        await expect(client().changeEmail(a.id, b.address.email)).rejects.toMatchObject({
          kind: 'conflict',
          fields: { newEmail: 'already registered' },
        });
      });

      it('changes the password only with the current one, and the new one must pass the policy', async () => {
        const e = email();
        const c = await client().register({ email: e, password: GOOD });
        await expect(client().changePassword(c.id, 'wrong horse battery', 'another good one')).rejects.toMatchObject({
          fields: { password: 'incorrect' },
        });
        await expect(client().changePassword(c.id, GOOD, 'password')).rejects.toMatchObject({ fields: { newPassword: 'not valid' } });
        await client().changePassword(c.id, GOOD, 'another good one');
        expect(await client().verifyLogin(e, GOOD)).toBeNull();
        expect(await client().verifyLogin(e, 'another good one')).toMatchObject({ id: c.id });
      });

      it('answers null for a customer that does not exist', async () => {
        expect(await client().getCustomer('00000000-0000-4000-8000-000000000000')).toBeNull();
      });
    });

    it('two concurrent registrations of one e-mail: one wins, the other is 409', async () => {
      const e = email();
      const results = await Promise.allSettled([
        service.client.register({ email: e, password: GOOD }),
        service.client.register({ email: e, password: GOOD }),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      expect(results.find((r) => r.status === 'rejected')).toMatchObject({ reason: { fields: { email: 'already registered' } } });
    });
  });
}
