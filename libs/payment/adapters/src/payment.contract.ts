import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { parseStoreConfig } from '@commerce/shared-config';
import type { Db } from '@commerce/shared-db';
import { createMemoryBus } from '@commerce/shared-bus';
import { createHttpApp, mountRouters, serve, type RunningServer } from '@commerce/shared-http';
import { createLogger } from '@commerce/shared-logging';
import { PaymentAuthorized, type AttemptDto, type StartAttemptCommand } from '@commerce/payment-contracts';
import { buildPaymentService, type PaymentService } from './payment.service';
import { notificationOf, returnParams } from './providers/hosted-test.provider';
import { signParams } from './providers/hmac-signature';
import { paymentBrowser } from './testing/payment-browser';

const store = parseStoreConfig(JSON.parse(readFileSync('infra/config/demo-store.json', 'utf8')));
const settings = {
  publicUrl: 'http://pay.example',
  hmacKey: '00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff',
  merchantAccount: 'TestMerchant',
};
const logger = createLogger('payment-test', 'silent');

/** The payment service through its client, its pages and its webhook: on PGlite (unit) and Postgres (int). */
export function paymentContract(name: string, db: () => Promise<Db>) {
  describe(`payment service on ${name}`, () => {
    let payment: PaymentService;
    let database: Db;
    let server: RunningServer;
    let base: string;
    /** The same app with the service's lean routes in front, as its process serves it; `leanAnswered` counts their answers. */
    let leanServer: RunningServer;
    let leanAnswered = 0;

    beforeAll(async () => {
      database = await db();
      payment = await buildPaymentService({ db: database, bus: createMemoryBus(), logger, store, testProviders: settings });
      const app = createHttpApp({ service: 'payment-test', logger, metrics: false });
      mountRouters(app, [payment.router, payment.pages]);
      server = await serve(app, { port: 0, host: '127.0.0.1', logger });
      base = `http://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
      const leanRoutes = payment.leanRoutes.map((route) => ({
        ...route,
        handle: (params: string[], body: unknown, opened: unknown) => {
          leanAnswered++;
          return route.handle(params, body, opened);
        },
      }));
      leanServer = await serve(app, { port: 0, host: '127.0.0.1', logger, leanRoutes });
    }, 60_000);
    afterAll(async () => {
      await server?.close();
      await leanServer?.close();
    });

    const command = (over: Partial<StartAttemptCommand> = {}): StartAttemptCommand => ({
      attemptId: randomUUID(),
      paymentMethod: 'test-card',
      selectionId: randomUUID(),
      amountMinor: 12_950,
      currency: 'SEK',
      address: { country: 'SE', firstName: 'Anna' },
      returnUrl: 'https://shop.example/thanks',
      failedUrl: 'https://shop.example/failed',
      orderDraft: { note: 'kept' },
      ...over,
    });
    const { browse, postForm, queryOf } = paymentBrowser(settings.publicUrl, () => base);
    const events = async (attemptId: string, type: string) =>
      (await database.table('outbox').where({ key: attemptId })).filter((r: { envelope: unknown }) => {
        const envelope = typeof r.envelope === 'string' ? JSON.parse(r.envelope) : r.envelope;
        return envelope.type === type;
      }).length;

    /** Starts a hosted redirect attempt and clicks a button of its payment page; the return URL's parameters. */
    async function payOnHostedPage(decision: 'approve' | 'decline', over: Partial<StartAttemptCommand> = {}) {
      const started = await payment.client.startAttempt(command(over));
      expect(started.action.action).toBe('redirect');
      const url = (started.action as { url: string }).url;
      const page = await browse(url);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('129.50 SEK');
      const back = await postForm(`${url}/decision`, { decision });
      expect(back.status).toBe(303);
      return { started, location: back.headers.get('location')! };
    }

    it('hosted page, approved: the visitor returns with signed parameters named as the PSP names them, and the result is authorized once', async () => {
      const { started, location } = await payOnHostedPage('approve');
      expect(location.startsWith('https://shop.example/thanks?')).toBe(true);
      const fields = queryOf(location);
      expect(Object.keys(fields).sort()).toEqual(
        ['authResult', 'currencyCode', 'merchantAccount', 'merchantReference', 'merchantSig', 'paymentAmount', 'pspReference'].sort(),
      );
      expect(fields).toMatchObject({
        authResult: 'AUTHORISED',
        merchantReference: started.attempt.attemptId,
        paymentAmount: '12950',
        currencyCode: 'SEK',
      });
      const results = await Promise.all([1, 2, 3].map(() => payment.client.verifyResult(fields)));
      for (const result of results)
        expect(result).toMatchObject({
          outcome: 'authorized',
          attempt: { attemptId: started.attempt.attemptId, status: 'authorized', orderDraft: { note: 'kept' } },
        });
      // The page's webhook and three returns: one authorization event.
      expect(await events(started.attempt.attemptId, PaymentAuthorized.type)).toBe(1);
    });

    it('hosted page, declined: the visitor lands on the failed page and the result is declined', async () => {
      const { location } = await payOnHostedPage('decline');
      expect(location.startsWith('https://shop.example/failed?')).toBe(true);
      const result = await payment.client.verifyResult(queryOf(location));
      expect(result.outcome).toBe('declined');
      expect(result.attempt.status).toBe('declined');
    });

    it('refuses a result whose amount, currency or outcome was changed, or whose signature is not the provider key', async () => {
      const started = await payment.client.startAttempt(command());
      const signed = returnParams(settings, { ...started.attempt }, true);
      await expect(payment.client.verifyResult({ ...signed, paymentAmount: '1' })).rejects.toMatchObject({
        fields: { paymentMethodFields: 'signature not valid' },
      });
      await expect(payment.client.verifyResult({ ...signed, authResult: 'AUTHORISED ' })).rejects.toMatchObject({
        fields: { paymentMethodFields: 'signature not valid' },
      });
      const otherKey = returnParams({ ...settings, hmacKey: 'ff'.repeat(32) }, started.attempt, true);
      await expect(payment.client.verifyResult(otherKey)).rejects.toMatchObject({ fields: { paymentMethodFields: 'signature not valid' } });
      // Correctly signed, but for another amount or currency than the attempt's (a key leaked, a bug at the PSP): still refused.
      const resign = (patch: Record<string, string>) => {
        const { merchantSig: _s, ...rest } = signed;
        const params = { ...rest, ...patch };
        return { ...params, merchantSig: signParams(settings.hmacKey, params) };
      };
      await expect(payment.client.verifyResult(resign({ paymentAmount: '100' }))).rejects.toMatchObject({
        fields: { paymentMethodFields: 'amount does not match the payment' },
      });
      await expect(payment.client.verifyResult(resign({ currencyCode: 'EUR' }))).rejects.toMatchObject({
        fields: { paymentMethodFields: 'currency does not match the payment' },
      });
      expect((await payment.client.getAttempt(started.attempt.attemptId))?.status).toBe('started');
      await expect(payment.client.verifyResult({ foo: 'bar' })).rejects.toMatchObject({
        fields: { paymentMethodFields: 'not a payment result of any payment method' },
      });
    });

    it('form variant: a form the browser posts to the payment page, signed; a changed form is refused', async () => {
      const started = await payment.client.startAttempt(command({ paymentMethod: 'test-card-form' }));
      expect(started.action.action).toBe('form');
      const html = (started.action as { formHtml: string }).formHtml;
      const action = /action="([^"]+)"/.exec(html)![1]!;
      const form = Object.fromEntries([...html.matchAll(/name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
      expect(form).toMatchObject({ merchantReference: started.attempt.attemptId, paymentAmount: '12950', currencyCode: 'SEK' });
      const page = await postForm(action, form);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('Approve');
      expect((await postForm(action, { ...form, paymentAmount: '1' })).status).toBe(400);
      const back = await postForm(`${action}/${started.attempt.providerReference}/decision`, { decision: 'approve' });
      const result = await payment.client.verifyResult(queryOf(back.headers.get('location')!));
      expect(result).toMatchObject({ outcome: 'authorized', attempt: { paymentMethod: 'test-card-form' } });
    });

    it('embedded form: a script snippet; the customer address arrives with the result, read from the provider', async () => {
      const started = await payment.client.startAttempt(command({ paymentMethod: 'test-embedded', address: { country: 'SE' } }));
      expect(started.action.action).toBe('form');
      const html = (started.action as { formHtml: string }).formHtml;
      expect(html).toContain('<script>');
      const src = JSON.parse(/f\.src=("[^"]+")/.exec(html)![1]!) as string;
      const page = await browse(src);
      expect(page.status).toBe(200);
      const address = { email: 'eva@example.com', firstName: 'Eva', lastName: 'Ek', address1: 'Ågatan 3', city: 'Lund', zipCode: '222 22' };
      const back = await postForm(`${src}/complete`, { ...address, decision: 'approve' });
      expect(back.status).toBe(303);
      const fields = queryOf(back.headers.get('location')!);
      expect(fields).toEqual({ embedded_order_id: started.attempt.providerReference });
      const result = await payment.client.verifyResult(fields);
      expect(result).toMatchObject({ outcome: 'authorized', attempt: { customerAddress: { ...address, country: 'SE' } } });
    });

    it('embedded form: a result before the visitor completed the checkout is refused', async () => {
      const started = await payment.client.startAttempt(command({ paymentMethod: 'test-embedded', address: { country: 'SE' } }));
      await expect(payment.client.verifyResult({ embedded_order_id: started.attempt.providerReference })).rejects.toMatchObject({
        fields: { paymentMethodFields: 'payment not completed' },
      });
    });

    it('invoice: success at once within the credit limit, failed above it', async () => {
      const granted = await payment.client.startAttempt(command({ paymentMethod: 'test-invoice', amountMinor: 100_000 }));
      expect(granted.action).toEqual({ action: 'success' });
      expect(granted.attempt.status).toBe('authorized');
      expect(await events(granted.attempt.attemptId, PaymentAuthorized.type)).toBe(1);
      const refused = await payment.client.startAttempt(command({ paymentMethod: 'test-invoice', amountMinor: 5_000_001 }));
      expect(refused.action).toEqual({ action: 'failed' });
      expect(refused.attempt.status).toBe('declined');
    });

    it('address-search: the registry of the invoice method, in its country only', async () => {
      expect(await payment.client.addressSearch('test-invoice', 'SE', '198001011234')).toEqual({
        firstName: 'Anna',
        lastName: 'Andersson',
        address1: 'Storgatan 1',
        zipCode: '114 51',
        city: 'Stockholm',
        country: 'SE',
      });
      await expect(payment.client.addressSearch('test-invoice', 'SE', '19990101-0000')).rejects.toMatchObject({
        kind: 'not_found',
        fields: { identityNumber: 'not found' },
      });
      await expect(payment.client.addressSearch('test-invoice', 'DE', '19800101-1234')).rejects.toMatchObject({
        kind: 'not_acceptable',
        fields: { country: 'not available in this country' },
      });
      await expect(payment.client.addressSearch('test-card', 'SE', '19800101-1234')).rejects.toMatchObject({
        kind: 'not_acceptable',
        fields: { paymentMethod: 'has no address search' },
      });
      await expect(payment.client.addressSearch('nope', 'SE', '19800101-1234')).rejects.toMatchObject({
        fields: { paymentMethod: 'not found' },
      });
    });

    it('webhook: a signed notification authorizes the attempt once; a forged one is refused', async () => {
      const started = await payment.client.startAttempt(command());
      const notification = notificationOf(settings, started.attempt, true);
      const post = (body: unknown) =>
        fetch(`${base}/payment/notifications/test`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const forged = structuredClone(notification);
      forged.notificationItems[0]!.NotificationRequestItem.amount.value = 1;
      const refused = await post(forged);
      expect(refused.status).toBe(400);
      expect((await payment.client.getAttempt(started.attempt.attemptId))?.status).toBe('started');
      const answers = await Promise.all([post(notification), post(notification)]);
      for (const answer of answers) {
        expect(answer.status).toBe(200);
        expect(await answer.text()).toBe('[accepted]');
      }
      expect((await payment.client.getAttempt(started.attempt.attemptId))?.status).toBe('authorized');
      expect(await events(started.attempt.attemptId, PaymentAuthorized.type)).toBe(1);
    });

    it('a checkout’s payment steps take one statement each, its Approve two, and no transaction: a start stores its redirect with the attempt, writes return the row and check it under its lock with their events in the same statement (issue 28)', async () => {
      const seen: string[] = [];
      const listen = (q: { sql: string }) => void seen.push(q.sql.trim());
      /** What `run` sent to the database, statement by statement (the relay is not started here: none of its own). */
      const counted = async <T>(run: () => Promise<T>) => {
        seen.length = 0;
        database.knex.on('query', listen);
        try {
          return { result: await run(), statements: [...seen] };
        } finally {
          database.knex.off('query', listen);
        }
      };
      const transactions = (statements: string[]) => statements.filter((sql) => /^(begin|start transaction)/i.test(sql)).length;

      // The start: one insert returning the row, with the provider's reference (a redirect asks no one to start).
      const { result: started, statements: start } = await counted(() => payment.client.startAttempt(command()));
      expect(start).toHaveLength(1);
      expect(start[0]).toMatch(/^insert into/i);
      expect(started.attempt.providerReference).toMatch(/^TP/);
      expect(await payment.client.getAttempt(started.attempt.attemptId)).toMatchObject({
        status: 'started',
        providerReference: started.attempt.providerReference,
      });
      // The Approve at the provider's page: the attempt read once (its webhook reuses it), the authorization and its event
      // in one update.
      const url = (started.action as { url: string }).url;
      const { result: back, statements: approve } = await counted(() => postForm(`${url}/decision`, { decision: 'approve' }));
      expect(back.status).toBe(303);
      expect(approve).toHaveLength(2);
      expect(await events(started.attempt.attemptId, PaymentAuthorized.type)).toBe(1);
      // The visitor's return: decided already, the lookup alone.
      const fields = queryOf(back.headers.get('location')!);
      const { result: again, statements: result } = await counted(() => payment.client.verifyResult(fields));
      expect(result).toHaveLength(1);
      expect(again).toMatchObject({ outcome: 'authorized', attempt: { attemptId: started.attempt.attemptId, status: 'authorized' } });
      expect(transactions([...start, ...approve, ...result])).toBe(0);

      // A return before the webhook: the lookup and the update that checks the status under the row's lock.
      const other = await payment.client.startAttempt(command());
      const { result: first, statements: verdict } = await counted(() =>
        payment.client.verifyResult(returnParams(settings, other.attempt, true)),
      );
      expect(verdict).toHaveLength(2);
      expect(first.outcome).toBe('authorized');
      expect(await events(other.attempt.attemptId, PaymentAuthorized.type)).toBe(1);
      // A verdict about an attempt read before another decided it: the update under the row's lock moves nothing, and
      // writes no event; the decided attempt is read.
      const stale = {
        ...(await payment.useCases.attemptByReference('test', other.attempt.providerReference))!,
        status: 'started' as const,
      };
      const { statements: late } = await counted(() =>
        payment.useCases.notify('test', { headers: {}, body: notificationOf(settings, other.attempt, false) }, stale),
      );
      expect(late).toHaveLength(2);
      expect(await payment.client.getAttempt(other.attempt.attemptId)).toMatchObject({ status: 'authorized' });
      expect(await events(other.attempt.attemptId, 'PaymentDeclined')).toBe(0);
    });

    it('a checkout’s start and result on the lean routes answer as the app’s routes do, errors included (decision 63)', async () => {
      const post = async (origin: string, path: string, body: string) => {
        const res = await fetch(`${origin}/internal/payment/${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as unknown };
      };
      /** The same request to the lean route, then to the app: the same answer (a start is idempotent by its id). */
      const same = async (path: string, body: string) => {
        const before = leanAnswered;
        const lean = await post(leanServer.url, path, body);
        expect(leanAnswered).toBe(before + 1);
        expect(await post(base, path, body)).toEqual(lean);
        return lean;
      };
      const first = command();
      // A new attempt (the insert alone), then the same start again on the app (read under the selection's lock): one answer.
      const started = await same('attempts', JSON.stringify(first));
      expect(started).toMatchObject({
        status: 200,
        body: { attempt: { attemptId: first.attemptId, status: 'started' }, action: { action: 'redirect' } },
      });
      expect(await same('attempts', JSON.stringify({ ...command(), paymentMethod: 'nope' }))).toMatchObject({
        status: 404,
        body: { code: expect.any(String), errors: { paymentMethod: 'not found' } },
      });
      expect(await same('results', JSON.stringify({ fields: { foo: 'bar' } }))).toMatchObject({
        status: 400,
        body: { errors: { paymentMethodFields: 'not a payment result of any payment method' } },
      });
      const fields = returnParams(settings, (started.body as { attempt: AttemptDto }).attempt, true);
      expect(await same('results', JSON.stringify({ fields }))).toMatchObject({ status: 200, body: { outcome: 'authorized' } });
      // Malformed JSON is refused before any handler, as the app's body parser refuses it.
      const malformed = await post(leanServer.url, 'results', '{"fields":');
      expect(await post(base, 'results', '{"fields":')).toEqual(malformed);
      expect(malformed.status).toBe(400);
    });

    it('the test page’s Approve and Decline on the lean route answer as the app’s route does (issue 28)', async () => {
      const lean = paymentBrowser(settings.publicUrl, () => leanServer.url);
      /** A button of a new attempt's page, through `browser`: what the visitor is answered, the attempt's ids put back. */
      const click = async (browser: typeof lean, decision: string, headers: Record<string, string> = {}) => {
        const started = await payment.client.startAttempt(command());
        const url = (started.action as { url: string }).url;
        const back = await browser.browse(`${url}/decision`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
          body: new URLSearchParams({ decision }).toString(),
        });
        const names = (text: string) =>
          text.replaceAll(started.attempt.attemptId, '<attempt>').replaceAll(started.attempt.providerReference, '<reference>');
        return {
          status: back.status,
          type: back.headers.get('content-type'),
          location: names(back.headers.get('location') ?? '').replace(/merchantSig=[^&]+/, 'merchantSig=<sig>'),
          body: names(await back.text()).replace(/merchantSig=[^&]+/g, 'merchantSig=<sig>'),
          headers: [...back.headers.keys()].filter((h) => h !== 'date').sort(),
          status_: (await payment.client.getAttempt(started.attempt.attemptId))?.status,
        };
      };
      const before = leanAnswered;
      for (const [decision, headers] of [
        ['approve', {}],
        ['decline', {}],
        ['approve', { accept: 'text/plain' }],
      ] as const) {
        const answered = await click(lean, decision, headers);
        expect(answered).toEqual(
          await click(
            paymentBrowser(settings.publicUrl, () => base),
            decision,
            headers,
          ),
        );
        expect(answered.status).toBe(303);
      }
      expect(leanAnswered).toBe(before + 3);
      expect((await click(lean, 'approve')).status_).toBe('authorized');
      // An unknown payment: the app's page, from the lean route too.
      const unknown = await lean.postForm(`${settings.publicUrl}/payment/test/pay/TP-nope/decision`, { decision: 'approve' });
      const app = await postForm(`${settings.publicUrl}/payment/test/pay/TP-nope/decision`, { decision: 'approve' });
      expect({ status: unknown.status, type: unknown.headers.get('content-type'), body: await unknown.text() }).toEqual({
        status: app.status,
        type: app.headers.get('content-type'),
        body: await app.text(),
      });
      expect(unknown.status).toBe(404);
    });

    it('starting an attempt twice answers the same attempt; a newer attempt of the selection cancels the older', async () => {
      const first = command();
      const a = await payment.client.startAttempt(first);
      const again = await payment.client.startAttempt(first);
      expect(again).toEqual(a);
      const newer = await payment.client.startAttempt(command({ selectionId: first.selectionId }));
      expect(newer.attempt.status).toBe('started');
      expect((await payment.client.getAttempt(first.attemptId))?.status).toBe('cancelled');
      expect(await payment.client.getAttempt(randomUUID())).toBeNull();
      await expect(payment.client.startAttempt(command({ paymentMethod: 'nope' }))).rejects.toMatchObject({
        fields: { paymentMethod: 'not found' },
      });
    });

    it('one live attempt per selection (decision 131): concurrent starts leave one started, the others cancelled at the provider too', async () => {
      const selectionId = randomUUID();
      const starts = await Promise.all(Array.from({ length: 6 }, () => payment.client.startAttempt(command({ selectionId }))));
      const statuses = await Promise.all(starts.map(async (s) => (await payment.client.getAttempt(s.attempt.attemptId))!.status));
      expect(statuses.filter((st) => st === 'started')).toHaveLength(1);
      expect(statuses.filter((st) => st === 'cancelled')).toHaveLength(5);
      const live = await payment.client.liveAttemptOf(selectionId);
      expect(live?.status).toBe('started');
      // The provider was told (its cancellation recorded), and the replaced attempts' pages refuse them.
      for (const s of starts) {
        if (s.attempt.attemptId === live!.attemptId) continue;
        const row = await database.table('attempts').where({ id: s.attempt.attemptId }).first();
        const data = typeof row.provider_data === 'string' ? JSON.parse(row.provider_data) : row.provider_data;
        expect(data.cancelled).toEqual({ cancelReference: expect.stringMatching(/^TC/) });
        expect((await browse(`${settings.publicUrl}/payment/test/pay/${row.provider_reference}`)).status).toBe(409);
      }
      // The database itself refuses a second live attempt of the selection, whatever the code does.
      const row = await database.table('attempts').where({ id: live!.attemptId }).first();
      await expect(database.table('attempts').insert({ ...row, id: randomUUID(), provider_reference: '' })).rejects.toMatchObject({
        code: '23505',
      });
    });

    it('an authorization arriving for a replaced attempt is voided, never kept: the newer attempt stays the live one', async () => {
      const first = command();
      const older = await payment.client.startAttempt(first);
      const newer = await payment.client.startAttempt(command({ selectionId: first.selectionId }));
      // The PSP authorized the older one before the cancellation reached it: its webhook and the visitor's return.
      const post = await fetch(`${base}/payment/notifications/test`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(notificationOf(settings, older.attempt, true)),
      });
      expect(post.status).toBe(200);
      const result = await payment.client.verifyResult(returnParams(settings, older.attempt, true));
      expect(result.outcome).toBe('voided');
      expect(await payment.client.getAttempt(first.attemptId)).toMatchObject({ status: 'voided', replaced: true });
      expect(await events(first.attemptId, PaymentAuthorized.type)).toBe(0);
      expect(await events(first.attemptId, 'PaymentVoided')).toBe(1);
      expect((await payment.client.liveAttemptOf(first.selectionId))?.attemptId).toBe(newer.attempt.attemptId);
    });

    it('an authorization applied to an attempt read before the sweep expired it is voided, never kept (a stale read)', async () => {
      const started = await payment.client.startAttempt(command());
      const read = (await payment.useCases.attemptByReference('test', started.attempt.providerReference))!;
      // Expired (cancelled) after the webhook's read of it, before its update: no other attempt holds the selection.
      await payment.client.cancelAttempt(started.attempt.attemptId);
      await payment.useCases.notify('test', { headers: {}, body: notificationOf(settings, started.attempt, true) }, read);
      // Recorded given up (`replaced`), as the sweep's expired attempts are: the checkout saga releases its stock hold.
      // Voided and not replaced would tell it the void was its own, its stock gone, and it would commit the hold.
      expect(await payment.client.getAttempt(started.attempt.attemptId)).toMatchObject({ status: 'voided', replaced: true });
      expect(await events(started.attempt.attemptId, PaymentAuthorized.type)).toBe(0);
      expect(await events(started.attempt.attemptId, 'PaymentVoided')).toBe(1);
      expect(await payment.client.liveAttemptOf(started.attempt.selectionId)).toBeNull();
    });

    it('a start while the selection is authorized starts nothing and answers the authorized attempt', async () => {
      const { started, location } = await payOnHostedPage('approve');
      await payment.client.verifyResult(queryOf(location));
      const second = await payment.client.startAttempt(command({ selectionId: started.attempt.selectionId }));
      expect(second).toMatchObject({
        attempt: { attemptId: started.attempt.attemptId, status: 'authorized' },
        action: { action: 'success' },
      });
      expect(await payment.client.getAttempt(second.attempt.attemptId)).not.toBeNull();
      expect((await database.table('attempts').where({ selection_id: started.attempt.selectionId })).length).toBe(1);
    });

    it('the sweep expires an abandoned started attempt (cancelled at the provider too); an authorization arriving for it later is voided', async () => {
      const abandoned = await payment.client.startAttempt(command());
      // The sweep of a replica whose clock stands a day and a minute later: the attempt is past the expiry.
      const later = await buildPaymentService({
        db: database,
        bus: createMemoryBus(),
        logger,
        store,
        testProviders: settings,
        now: () => new Date(Date.now() + 24 * 3600_000 + 60_000),
      });
      const fresh = await later.client.startAttempt(command());
      let expired = 0;
      for (let run = 0; run < 20; run++) {
        const outcome = await later.sweep();
        expect(outcome.failures).toEqual([]);
        expired += outcome.expired;
        if (outcome.expired === 0) break;
      }
      expect(expired).toBeGreaterThanOrEqual(1);
      expect(await payment.client.getAttempt(abandoned.attempt.attemptId)).toMatchObject({ status: 'cancelled', replaced: true });
      expect(await events(abandoned.attempt.attemptId, 'PaymentCancelled')).toBe(1);
      const row = await database.table('attempts').where({ id: abandoned.attempt.attemptId }).first();
      const data = typeof row.provider_data === 'string' ? JSON.parse(row.provider_data) : row.provider_data;
      expect(data.cancelled).toEqual({ cancelReference: expect.stringMatching(/^TC/) });
      // An attempt younger than the expiry is left alone.
      expect((await payment.client.getAttempt(fresh.attempt.attemptId))?.status).toBe('started');
      // The PSP authorizes the abandoned payment after all (its webhook, then the visitor's return): voided, never kept.
      const post = await fetch(`${base}/payment/notifications/test`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(notificationOf(settings, abandoned.attempt, true)),
      });
      expect(post.status).toBe(200);
      expect((await payment.client.verifyResult(returnParams(settings, abandoned.attempt, true))).outcome).toBe('voided');
      expect(await payment.client.getAttempt(abandoned.attempt.attemptId)).toMatchObject({ status: 'voided', replaced: true });
      expect(await events(abandoned.attempt.attemptId, PaymentAuthorized.type)).toBe(0);
      expect(await events(abandoned.attempt.attemptId, 'PaymentVoided')).toBe(1);
      expect(await payment.client.liveAttemptOf(abandoned.attempt.selectionId)).toBeNull();
    });
  });
}
