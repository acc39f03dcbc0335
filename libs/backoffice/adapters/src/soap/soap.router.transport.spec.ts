import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import Koa from 'koa';
import { bodyParser } from '@koa/bodyparser';
import pino from 'pino';
import { DEFAULT_SOAP_NAMESPACE } from '@commerce/backoffice-contracts';
import type { PasswordHasher } from '@commerce/backoffice-core';
import { soapHeaders, soapRequest } from '../testing/soap-request';
import { createSoapRouter } from './soap.router';

// The transport alone: the use case is a stub, the hasher transparent, no database.
const hasher: PasswordHasher = { hash: async (p) => `plain$${p}`, verify: async (p, e) => e === `plain$${p}` };
const SOAP_PATH = '/ams/system/service/module/soap/api';
const body = soapRequest('products_Update', '<ns1:products><ns1:product><ns1:id>1</ns1:id></ns1:product></ns1:products>', {
  username: 'erp',
  password: 'pw',
});

async function serve(
  receiveProducts: (products: unknown[]) => Promise<unknown>,
  options: { bodyLimit?: number; withBodyParser?: boolean; budget?: { baseMs: number; perMbMs: number } } = {},
) {
  const router = createSoapRouter({
    receiveEntities: (entity, entities) => (entity === 'product' ? receiveProducts(entities) : Promise.reject(new Error(entity))),
    users: [{ username: 'erp', passwordHash: 'plain$pw' }],
    namespace: DEFAULT_SOAP_NAMESPACE,
    logger: pino({ level: 'silent' }),
    hasher,
    ...(options.bodyLimit ? { bodyLimit: options.bodyLimit } : {}),
    ...(options.budget ? { budget: options.budget } : {}),
  });
  const app = new Koa();
  if (options.withBodyParser) app.use(bodyParser({ enableTypes: ['json', 'xml'] }));
  app.use(router.routes());
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${SOAP_PATH}`;
  return { url, close: () => new Promise((r) => server.close(r)) };
}

describe('the SOAP transport', () => {
  it('reads the envelope from rawBody when a body parser has already consumed the stream', async () => {
    const received: unknown[] = [];
    const s = await serve(async (p) => void received.push(...p), { withBodyParser: true });
    const res = await fetch(s.url, { method: 'POST', headers: soapHeaders('products_Update'), body });
    await s.close();
    expect(res.status).toBe(200);
    expect(received).toEqual([{ id: '1' }]);
  });

  it('answers only once the use case has resolved (the batch is durable)', async () => {
    let release!: () => void;
    const durable = new Promise<void>((r) => (release = r));
    const s = await serve(() => durable);
    let answered = false;
    const pending = fetch(s.url, { method: 'POST', headers: soapHeaders('products_Update'), body }).then((r) => ((answered = true), r));
    await new Promise((r) => setTimeout(r, 100));
    expect(answered).toBe(false);
    release();
    expect((await pending).status).toBe(200);
    await s.close();
  });

  it('answers a Server fault with Retry-After at its budget when what it waits on does not answer (decision 142)', async () => {
    // A store that never answers (a stalled database holds the batch's transaction): without a budget, a hang.
    const s = await serve(() => new Promise(() => undefined), { budget: { baseMs: 300, perMbMs: 0 } });
    const started = performance.now();
    const res = await fetch(s.url, { method: 'POST', headers: soapHeaders('products_Update'), body });
    const ms = performance.now() - started;
    const text = await res.text();
    expect(res.status).toBe(500);
    expect(ms).toBeGreaterThanOrEqual(290);
    expect(ms).toBeLessThan(300 + 500);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(text).toContain('<faultcode>SOAP-ENV:Server</faultcode>');
    expect(text).toContain('<code>BACKOFFICE.UNAVAILABLE</code>');
    expect(text).toContain('temporarily unavailable');
    // The budget grows with the XML: with a large allowance per MB the same (small) request has time enough.
    const quick = await serve(async () => new Promise((r) => setTimeout(r, 400)), { budget: { baseMs: 300, perMbMs: 2_000_000_000 } });
    const slower = await fetch(quick.url, { method: 'POST', headers: soapHeaders('products_Update'), body });
    expect(slower.status).toBe(200);
    await quick.close();
    await s.close();
  });

  it('answers a Server fault that leaks nothing of an unexpected error', async () => {
    const s = await serve(async () => {
      throw new Error('connection to db-7.internal refused');
    });
    const res = await fetch(s.url, { method: 'POST', headers: soapHeaders('products_Update'), body });
    const text = await res.text();
    await s.close();
    expect(res.status).toBe(500);
    expect(res.headers.get('x-service-request-id')).toBeTruthy();
    expect(text).toContain('<faultcode>SOAP-ENV:Server</faultcode>');
    expect(text).not.toContain('db-7');
    expect(text).not.toMatch(/\bat \S+:\d+/);
  });

  it('refuses a body over the limit with a Client fault', async () => {
    const s = await serve(async () => undefined, { bodyLimit: 1000 });
    const res = await fetch(s.url, { method: 'POST', headers: soapHeaders('products_Update'), body: body + ' '.repeat(2000) });
    const text = await res.text();
    await s.close();
    expect(res.status).toBe(413);
    expect(text).toContain('<faultcode>SOAP-ENV:Client</faultcode>');
    expect(text).toContain('BACKOFFICE.REQUEST_TOO_LARGE');
  });

  it('points a GET without ?wsdl to the WSDL, and serves the WSDL with the endpoint it was asked at', async () => {
    const s = await serve(async () => undefined);
    const plain = await fetch(s.url);
    const wsdl = await fetch(`${s.url}?WSDL`);
    const text = await wsdl.text();
    await s.close();
    expect(plain.status).toBe(400);
    expect(wsdl.headers.get('content-type')).toBe('text/xml; charset=utf-8');
    expect(text).toContain(`<soap:address location="${s.url}"/>`);
  });
});
