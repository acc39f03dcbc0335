import { migrate, type Db } from '@commerce/shared-db';
import { createLogger } from '@commerce/shared-logging';
import { startSmtpCatcher, type CaughtMail } from '@commerce/shared-testing';
import { buildAccountService, type AccountService } from './account.service';
import { createMailer, type ClosableMailer } from './mailer';
import { TEST_ARGON2 } from './account.contract';
import { accountMigrations } from './account.migrations';
import { createResetMailRelay } from './reset-mail.relay';
const GOOD = 'correct horse battery';
let seq = 0;
const email = () => `reset-${process.pid}-${Date.now()}-${++seq}@example.com`;

const until = async <T>(read: () => Promise<T | null | undefined> | T | null | undefined, what: string, ms = 20_000): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (value) return value;
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};

/**
 * Decision 47: a reset mail is written before the answer and sent by a relay that retries a failing SMTP
 * server and marks the request sent once. With a real SMTP server (`smtp-server`) that is down, then up.
 * `db()` gives a fresh schema each call; PGlite (unit) and Postgres (int).
 */
export function resetMailContract(name: string, db: () => Promise<Db>) {
  describe(`durable reset mails on ${name}`, () => {
    const opened: Array<{ service: AccountService; mailer: ClosableMailer }> = [];
    const logger = createLogger('reset-mail-test', 'silent');
    const open = async (database: Db, smtpUrl: string, start = true) => {
      const mailer = createMailer({ url: smtpUrl, from: 'Shop <shop@example.com>' });
      const service = await buildAccountService({
        db: database,
        argon2: TEST_ARGON2,
        mailer,
        frontendUrl: 'https://shop.example/',
        logger,
        // Fast retries, so that a test sees several failed sends and the one that works.
        resetMails: { intervalMs: 50, retryBaseMs: 50, retryMaxMs: 200 },
      });
      if (start) await service.start();
      opened.push({ service, mailer });
      return service;
    };
    afterEach(async () => {
      for (const { service, mailer } of opened.splice(0)) {
        await service.stop();
        mailer.close();
      }
    });
    const linkIn = (mail: CaughtMail) => new URL(/https:\/\/\S+/.exec(mail.text)![0]);
    const rowOf = (database: Db, to: string) => database.table('reset_mails').where({ email: to }).first();

    it('retries while the SMTP server is down; once it is up the mail arrives once, and its link works', async () => {
      const database = await db();
      // A port nothing listens on any more: the SMTP server is down.
      const first = await startSmtpCatcher();
      await first.close();
      const service = await open(database, first.url);
      const e = email();
      const customer = await service.client.register({ email: e, password: GOOD });
      await service.client.requestPasswordReset(e, '/reset');
      const failing = await until(async () => {
        const row = await rowOf(database, e);
        return row && row.attempts >= 2 ? row : null;
      }, 'two failed sends');
      expect(failing).toMatchObject({ done_at: null, outcome: null, last_error: expect.any(String) });

      const smtp = await startSmtpCatcher({ port: first.port });
      try {
        const mail = await smtp.mailTo(e, 20_000);
        expect(mail.subject).toBe('Reset your password');
        const sent = await until(async () => {
          const row = await rowOf(database, e);
          return row?.outcome === 'sent' ? row : null;
        }, 'the request marked sent');
        expect(sent.done_at).not.toBeNull();
        // Several poll periods later: still one mail.
        await new Promise((r) => setTimeout(r, 500));
        await service.settled();
        expect(smtp.mails.filter((m) => m.to.includes(e))).toHaveLength(1);
        const link = linkIn(mail);
        expect(link.pathname).toBe('/reset');
        const reset = await service.client.resetPassword(link.searchParams.get('id')!, link.searchParams.get('i')!, 'a brand new secret');
        expect(reset.id).toBe(customer.id);
      } finally {
        await smtp.close();
      }
    }, 60_000);

    it('mails a request a service answered and then died without sending: the next one sends it', async () => {
      const database = await db();
      const smtp = await startSmtpCatcher();
      try {
        const e = email();
        // This one answers and never starts its relay, as if it crashed right after the answer.
        const crashed = await open(database, smtp.url, false);
        await crashed.client.register({ email: e, password: GOOD });
        await crashed.client.requestPasswordReset(e);
        await new Promise((r) => setTimeout(r, 200));
        expect(smtp.mails).toHaveLength(0);
        expect(await rowOf(database, e)).toMatchObject({ done_at: null, attempts: 0 });
        await open(database, smtp.url);
        expect((await smtp.mailTo(e)).subject).toBe('Reset your password');
      } finally {
        await smtp.close();
      }
    }, 60_000);

    it('two relays on one schema mail each request once; an unknown e-mail is marked and mailed nothing', async () => {
      const database = await db();
      const smtp = await startSmtpCatcher();
      try {
        const [a, b] = [await open(database, smtp.url), await open(database, smtp.url)];
        const known = await Promise.all(
          [1, 2, 3, 4, 5, 6].map(async () => (await a.client.register({ email: email(), password: GOOD })).address.email),
        );
        const unknown = email();
        await Promise.all([...known, unknown].map((e, i) => (i % 2 ? a : b).client.requestPasswordReset(e)));
        for (const e of known) await smtp.mailTo(e);
        await until(async () => {
          const rows = await database
            .table('reset_mails')
            .whereIn('email', [...known, unknown])
            .whereNotNull('done_at');
          return rows.length === known.length + 1 ? rows : null;
        }, 'every request done');
        await new Promise((r) => setTimeout(r, 300));
        for (const e of known) expect(smtp.mails.filter((m) => m.to.includes(e))).toHaveLength(1);
        expect(smtp.mails.filter((m) => m.to.includes(unknown))).toHaveLength(0);
        expect(await rowOf(database, unknown)).toMatchObject({ outcome: 'no customer' });
      } finally {
        await smtp.close();
      }
    }, 60_000);

    it('deletes done requests once they are a day old, looking at most once a minute, not at every poll (decision 200)', async () => {
      const database = await db();
      await migrate(database, accountMigrations);
      const day = 24 * 3600_000;
      let clock = Date.parse('2026-01-02T00:00:00Z');
      const relay = createResetMailRelay(database, () => Promise.resolve('sent'), { now: () => new Date(clock), keepDoneMs: day });
      const done = (id: string, agoMs: number) => ({
        id,
        email: email(),
        link_path: '/reset',
        requested_at: new Date(clock - agoMs),
        next_attempt_at: new Date(clock - agoMs),
        attempts: 1,
        done_at: new Date(clock - agoMs),
        outcome: 'sent',
      });
      const left = async () => ((await database.table('reset_mails').select('id').orderBy('id')) as Array<{ id: string }>).map((r) => r.id);
      const [old, young] = ['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002'];
      await database.table('reset_mails').insert([done(old, day + 1000), done(young, day - 10_000)]);
      // A pass deletes what is a day old, and only that.
      await relay.drain();
      expect(await left()).toEqual([young]);
      // 30 s later the young one is a day old, but the next look is due a minute after the last.
      clock += 30_000;
      await relay.drain();
      expect(await left()).toEqual([young]);
      clock += 30_000;
      await relay.drain();
      expect(await left()).toEqual([]);
    });
  });
}
