import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { bodyParser } from '@koa/bodyparser';
import type { Db } from '@commerce/shared-db';
import { createAccountHttpClient, type AccountClient } from '@commerce/account-contracts';
import type { Mail } from '@commerce/account-core';
import { itemIdParts, ProductUpserted } from '@commerce/catalog-contracts';
import {
  AccountUpsertReceived,
  CustomerUpsertReceived,
  PaymentTermsUpsertReceived,
  SalesRepUpsertReceived,
  hashScryptPassword,
} from '@commerce/erp-contracts';
import { AccountTopics } from '@commerce/account-contracts';
import type { EventEnvelope } from '@commerce/shared-events';
import { createMemoryBus, type EventBus } from '@commerce/shared-bus';
import { createLogger } from '@commerce/shared-logging';
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
    let database: Db;
    let bus: EventBus;
    const clients: Record<string, AccountClient> = {};
    const mails: Mail[] = [];
    let failMail = false;
    let clock = Date.now();
    const stock = new Map<string, number>();

    beforeAll(async () => {
      database = await db();
      const logger = createLogger('account-test', 'silent');
      bus = createMemoryBus({ logger });
      service = await buildAccountService({
        db: database,
        argon2: TEST_ARGON2,
        mailer: {
          send: async (mail) => {
            if (failMail) throw new Error('smtp down');
            mails.push(mail);
          },
        },
        frontendUrl: 'https://shop.example/se/',
        resetTtlMinutes: 60,
        now: () => new Date(clock),
        logger,
        bus,
        catalog: { getItem: async (item) => (stock.has(item) ? ({ stock: stock.get(item)! } as never) : null) },
      });
      await service.start();
      const app = new Koa();
      app.use(bodyParser());
      app.use(service.router.routes()).use(service.router.allowedMethods());
      server = createServer(app.callback());
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      clients['in process'] = service.client;
      clients['over HTTP'] = createAccountHttpClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    }, 60_000);
    afterAll(async () => {
      await service?.stop();
      await bus?.close();
      await new Promise((r) => server?.close(r));
    });

    const linkIn = (mail: Mail) => new URL(/https:\/\/\S+/.exec(mail.text)![0]);
    const mailTo = async (to: string) => {
      await service.settled();
      return mails.filter((m) => m.to === to);
    };

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

      it('mails a reset link: the frontend URL, the path, id and a secret of at least 128 bits; the link resets once and raises the session epoch', async () => {
        const e = email();
        const c = await client().register({ email: e, password: GOOD, firstName: 'Ada' });
        await client().requestPasswordReset(e.toUpperCase(), '/account/reset');
        const [mail] = await mailTo(e);
        expect(mail).toMatchObject({ to: e, subject: 'Reset your password' });
        const link = linkIn(mail!);
        expect(`${link.origin}${link.pathname}`).toBe('https://shop.example/se/account/reset');
        const id = link.searchParams.get('id')!;
        const i = link.searchParams.get('i')!;
        expect(Buffer.from(i, 'base64url').length).toBeGreaterThanOrEqual(16);
        // Kept hashed: the table never holds the secret itself.
        const row = await database.table('reset_tokens').where({ id }).first();
        expect(row.secret_hash).toMatch(/^[0-9a-f]{64}$/);
        expect(JSON.stringify(row)).not.toContain(i);

        await expect(client().resetPassword(id, i, 'password')).rejects.toMatchObject({ fields: { newPassword: 'not valid' } });
        const reset = await client().resetPassword(id, i, 'a brand new secret');
        expect(reset).toMatchObject({ id: c.id, sessionEpoch: c.sessionEpoch + 1 });
        expect(await client().verifyLogin(e, GOOD)).toBeNull();
        expect(await client().verifyLogin(e, 'a brand new secret')).toMatchObject({ id: c.id });
        await expect(client().resetPassword(id, i, 'yet another secret')).rejects.toMatchObject({
          kind: 'not_acceptable',
          fields: { i: 'not valid' },
        });
      });

      it('sends nothing for an e-mail no customer has, and answers the same', async () => {
        const e = email();
        await expect(client().requestPasswordReset(e, '/reset')).resolves.toBeUndefined();
        expect(await mailTo(e)).toEqual([]);
      });

      it.each([
        ['a scheme', 'https://evil.example/reset'],
        ['a host', '//evil.example/reset'],
        ['a parent segment', '/a/../reset'],
        ['an encoded parent segment', '/a/%2e%2e/reset'],
        ['a query', '/reset?next=x'],
        ['a backslash', '/\\evil.example'],
        ['a javascript: URL', 'javascript:alert(1)'],
      ])('refuses a linkUri with %s with 400 errors.linkUri', async (_what, linkUri) => {
        await expect(client().requestPasswordReset(email(), linkUri)).rejects.toMatchObject({
          kind: 'invalid',
          fields: { linkUri: expect.any(String) },
        });
      });

      it('refuses a link after it expired, a wrong secret and a malformed id with 406 errors.i', async () => {
        const e = email();
        await client().register({ email: e, password: GOOD });
        await client().requestPasswordReset(e);
        const link = linkIn((await mailTo(e))[0]!);
        const id = link.searchParams.get('id')!;
        expect(link.pathname).toBe('/se/');
        await expect(client().resetPassword(id, 'x'.repeat(43), 'a brand new secret')).rejects.toMatchObject({
          fields: { i: 'not valid' },
        });
        await expect(client().resetPassword('not-an-id', 'x', 'a brand new secret')).rejects.toMatchObject({ fields: { i: 'not valid' } });
        clock += 61 * 60_000;
        try {
          await expect(client().resetPassword(id, link.searchParams.get('i')!, 'a brand new secret')).rejects.toMatchObject({
            fields: { i: 'not valid' },
          });
        } finally {
          clock -= 61 * 60_000;
        }
        expect(await client().verifyLogin(e, GOOD)).not.toBeNull();
      });

      it('keeps one newsletter subscription per e-mail with the time of the first consent', async () => {
        const e = email();
        await client().subscribeNewsletter({ email: e, country: 'se' });
        const first = await database.table('newsletter_subscriptions').where({ email_key: e.toLowerCase() }).first();
        clock += 1000;
        await client().subscribeNewsletter({ email: e.toUpperCase(), language: 'sv' });
        clock -= 1000;
        const rows = await database.table('newsletter_subscriptions').where({ email_key: e.toLowerCase() });
        expect(rows).toHaveLength(1);
        expect(rows[0]).toMatchObject({ country: 'SE', language: 'sv' });
        expect(new Date(rows[0].consented_at).getTime()).toBe(new Date(first.consented_at).getTime());
        await expect(client().subscribeNewsletter({ email: 'nope' })).rejects.toMatchObject({
          kind: 'invalid',
          fields: { email: expect.any(String) },
        });
        await expect(client().subscribeNewsletter({ email: e, country: 'Sweden' })).rejects.toMatchObject({
          fields: { country: expect.any(String) },
        });
      });

      it('answers null for a customer that does not exist', async () => {
        expect(await client().getCustomer('00000000-0000-4000-8000-000000000000')).toBeNull();
      });
    });

    it('mails a back-in-stock request once, when a product event finds the item above zero; a failed mail is tried again', async () => {
      const [a, b] = [email(), email()];
      const item = `${900_000 + seq}-1`;
      const { product } = itemIdParts(item);
      await service.client.subscribeBackInStock({ email: a, item });
      await service.client.subscribeBackInStock({ email: a, item });
      await service.client.subscribeBackInStock({ email: b, item });
      const event = () => bus.publish([ProductUpserted.create(product, { productId: product, externalId: `P-${product}` })]);
      const sentTo = () =>
        mails
          .filter((m) => m.subject === 'Back in stock' && [a, b].includes(m.to))
          .map((m) => m.to)
          .sort();
      stock.set(item, 0);
      await event();
      await new Promise((r) => setTimeout(r, 200));
      expect(sentTo()).toEqual([]);
      stock.set(item, 3);
      failMail = true;
      await event();
      await new Promise((r) => setTimeout(r, 200));
      failMail = false;
      await event();
      const until = Date.now() + 10_000;
      while (sentTo().length < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
      expect(sentTo()).toEqual([a, b].sort());
      await event();
      await new Promise((r) => setTimeout(r, 200));
      expect(sentTo()).toEqual([a, b].sort());
      await expect(service.client.subscribeBackInStock({ email: a, item: 'nope' })).rejects.toMatchObject({
        fields: { item: expect.any(String) },
      });
    });

    describe('from the back office (backoffice.upsert.v1) and to it (account.customer.v1)', () => {
      const until = async <T>(read: () => Promise<T | undefined | null>, what: string): Promise<T> => {
        const end = Date.now() + 15_000;
        for (;;) {
          const value = await read();
          if (value) return value;
          if (Date.now() > end) throw new Error(`not within 15 s: ${what}`);
          await new Promise((r) => setTimeout(r, 25));
        }
      };
      const row = (externalKey: string) => database.table('customers').where({ external_key: externalKey }).first();

      it('creates a customer from customers_Update without a password; a password reset gives it one', async () => {
        const e = email();
        const id = `C-${seq}-${Date.now()}`;
        await bus.publish([CustomerUpsertReceived.envelopeOf({ id, firstname: 'Erp', email: e, country: 'de', zipcode: '10115' })]);
        const created = await until(() => row(`customer:${id}`), 'the customer');
        expect(created).toMatchObject({ email: e, first_name: 'Erp', country: 'DE', zip_code: '10115' });
        expect(await service.client.verifyLogin(e, '')).toBeNull();
        await service.client.requestPasswordReset(e);
        const link = linkIn((await mailTo(e))[0]!);
        const customer = await service.client.resetPassword(
          link.searchParams.get('id')!,
          link.searchParams.get('i')!,
          'chosen after the erp',
        );
        expect(customer.id).toBe(created.id);
        expect(await service.client.verifyLogin(e, 'chosen after the erp')).toMatchObject({ id: created.id });
        // A later upsert merges: the fields left out keep their value.
        await bus.publish([CustomerUpsertReceived.envelopeOf({ id, lastname: 'Later' })]);
        await until(async () => ((await row(`customer:${id}`))?.last_name === 'Later' ? true : null), 'the merge');
        expect(await row(`customer:${id}`)).toMatchObject({ first_name: 'Erp', email: e });
      });

      it('links the ERP customer to the shop customer with its e-mail, keeping the password', async () => {
        const e = email();
        const c = await service.client.register({ email: e, password: GOOD, firstName: 'Shop' });
        const id = `C-${seq}-${Date.now()}`;
        await bus.publish([CustomerUpsertReceived.envelopeOf({ id, email: e.toUpperCase(), city: 'Berlin' })]);
        const linked = await until(() => row(`customer:${id}`), 'the link');
        expect(linked).toMatchObject({ id: c.id, city: 'Berlin', first_name: 'Shop' });
        expect(await service.client.verifyLogin(e, GOOD)).toMatchObject({ id: c.id });
      });

      it('lets a buyer of accounts_Update log in with its scrypt password in its market and pricelist, then keeps argon2id', async () => {
        const e = email();
        const accountId = `A-${seq}-${Date.now()}`;
        const passwordhash = await hashScryptPassword('buyer password 1', { N: 2 ** 10, r: 8, p: 1 });
        await bus.publish([
          AccountUpsertReceived.envelopeOf({
            id: accountId,
            market: { id: '2' },
            pricelist: { id: '5' },
            buyers: [
              { id: `${accountId}-B1`, email: e, firstname: 'Buyer', passwordhash },
              { id: `${accountId}-B2`, pricelist: { id: '9' } },
            ],
          }),
        ]);
        await until(() => row(`buyer:${accountId}-B2`), 'the buyers');
        expect(await row(`buyer:${accountId}-B2`)).toMatchObject({ account_id: accountId, market: '2', pricelist: '9' });
        expect(await service.client.verifyLogin(e, 'wrong buyer password')).toBeNull();
        expect(await service.client.verifyLogin(e, 'buyer password 1')).toMatchObject({
          market: '2',
          pricelist: '5',
          address: { firstName: 'Buyer' },
        });
        const { password_hash } = await database
          .table('credentials')
          .where({ customer_id: (await row(`buyer:${accountId}-B1`)).id })
          .first();
        expect(password_hash).toMatch(/^\$argon2id\$/);
        expect(await service.client.verifyLogin(e, 'buyer password 1')).not.toBeNull();
        const kept = await database.table('backoffice_entities').where({ entity: 'account', id: accountId }).first();
        const data = typeof kept.data === 'string' ? JSON.parse(kept.data) : kept.data;
        expect(data).toMatchObject({ market: { id: '2' }, buyers: [{ id: `${accountId}-B1` }, { id: `${accountId}-B2` }] });
        expect(JSON.stringify(data)).not.toContain('scrypt');
      });

      it('keeps sales reps and payment terms, merged', async () => {
        const id = `S-${seq}-${Date.now()}`;
        await bus.publish([
          SalesRepUpsertReceived.envelopeOf({ id, name: 'Rep', percent: '5' }),
          PaymentTermsUpsertReceived.envelopeOf({ id, duedays: '30' }),
        ]);
        await bus.publish([SalesRepUpsertReceived.envelopeOf({ id, email: 'rep@example.com' })]);
        const rep = await until(async () => {
          const r = await database.table('backoffice_entities').where({ entity: 'salesrep', id }).first();
          const d = r && (typeof r.data === 'string' ? JSON.parse(r.data) : r.data);
          return d?.email ? d : null;
        }, 'the sales rep');
        expect(rep).toEqual({ id, name: 'Rep', percent: '5', email: 'rep@example.com' });
        await until(() => database.table('backoffice_entities').where({ entity: 'paymentterms', id }).first(), 'the terms');
      });

      it('publishes a registration and an address change as account.customer.v1 through the outbox', async () => {
        const seen: EventEnvelope[] = [];
        const sub = await bus.subscribe({
          groupId: `test-${seq}-${Date.now()}`,
          topics: [AccountTopics.CUSTOMER],
          handle: async (ev) => void seen.push(ev),
        });
        try {
          const e = email();
          const c = await service.client.register({ email: e, password: GOOD, firstName: 'Ada' });
          await service.client.updateAddress(c.id, { city: 'Paris' });
          const mine = () => seen.filter((ev) => ev.key === c.id);
          await until(async () => (mine().length >= 2 ? true : null), 'both events');
          expect(mine().map((ev) => ev.type)).toEqual(['CustomerRegistered', 'CustomerChanged']);
          expect(mine()[1]!.payload).toMatchObject({ customerId: c.id, address: { email: e, firstName: 'Ada', city: 'Paris' } });
          expect(JSON.stringify(mine())).not.toMatch(/argon2|password/i);
        } finally {
          await sub.stop();
        }
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
