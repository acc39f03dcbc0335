import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DomainError } from '@commerce/shared-errors';
import { withRequestContext } from '@commerce/shared-logging';
import { createInternalCaller, createInternalCallers } from './internal-caller';

describe('internal caller', () => {
  let server: http.Server;
  let base: string;
  const seen: Array<{ url?: string; requestId?: string | string[]; deadline?: string | string[] }> = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      seen.push({ url: req.url, requestId: req.headers['x-request-id'], deadline: req.headers['x-request-deadline'] });
      const reply = (status: number, body: string) => res.writeHead(status, { 'content-type': 'application/json' }).end(body);
      if (req.url === '/stall') setTimeout(() => reply(200, '{"late":true}'), 3000).unref();
      else if (req.url === '/slow') setTimeout(() => reply(200, '{"slow":true}'), 1600).unref();
      else if (req.url === '/ok') reply(200, '{"a":1}');
      else if (req.url === '/missing') reply(404, '{"errors":{"x":"not found"}}');
      else if (req.url === '/bad') reply(400, '{"code":"CART.INVALID","errors":{"quantity":"must be positive"}}');
      else if (req.url === '/broken') reply(500, 'oops');
      else reply(200, 'not json');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    const closed = new Promise((r) => server.close(r));
    // The pools keep their connections alive (30 s), some with a request the server never answered.
    server.closeAllConnections();
    await closed;
  });

  it('returns the parsed body and passes the request id on', async () => {
    const call = createInternalCaller(base, 'cart');
    expect(await withRequestContext({ requestId: 'req-42' }, () => call('GET', '/ok'))).toEqual({ a: 1 });
    expect(seen.at(-1)).toEqual({ url: '/ok', requestId: 'req-42' });
  });

  it('tells the callee the time its request has left, and gives up when it is gone (decision 132)', async () => {
    const call = createInternalCaller(base, 'cart');
    const deadline = Date.now() + 300;
    expect(await withRequestContext({ requestId: 'r', deadline }, () => call('GET', '/ok'))).toEqual({ a: 1 });
    expect(Number(seen.at(-1)?.deadline)).toBeGreaterThan(200);
    expect(Number(seen.at(-1)?.deadline)).toBeLessThanOrEqual(300);
    const started = performance.now();
    const error = await withRequestContext({ requestId: 'r', deadline: Date.now() + 300 }, () => call('GET', '/stall')).catch(
      (e: unknown) => e,
    );
    expect(performance.now() - started).toBeLessThan(1500);
    expect(error).toMatchObject({
      kind: 'unavailable',
      fields: { server: 'temporarily unavailable' },
      message: expect.stringMatching(/^cart: no answer within \d+ ms$/),
    });
    // Past its deadline, a request calls nobody.
    const calls = seen.length;
    await expect(withRequestContext({ requestId: 'r', deadline: Date.now() - 1 }, () => call('GET', '/ok'))).rejects.toMatchObject({
      kind: 'unavailable',
    });
    expect(seen.length).toBe(calls);
    // Outside a request: no deadline told.
    await call('GET', '/ok');
    expect(seen.at(-1)?.deadline).toBeUndefined();
  });

  it('sends a path as `new URL` would spell it, and a plain one as it is', async () => {
    const call = createInternalCaller(base, 'cart');
    await call('GET', '/ok?q=a b&é').catch(() => undefined);
    expect(seen.at(-1)?.url).toBe('/ok?q=a%20b&%C3%A9');
    await call('GET', '/ok?q=a%20b').catch(() => undefined);
    expect(seen.at(-1)?.url).toBe('/ok?q=a%20b');
  });

  it('answers null for a 404', async () => {
    expect(await createInternalCaller(base, 'cart')('GET', '/missing')).toBeNull();
  });

  it('turns a 400 back into the callee error fields and code', async () => {
    await expect(createInternalCaller(base, 'cart')('POST', '/bad', {})).rejects.toMatchObject({
      code: 'CART.INVALID',
      kind: 'invalid',
      fields: { quantity: 'must be positive' },
    });
  });

  it.each(['/broken', '/text'])('treats %s (5xx or not JSON) as the callee being unavailable', async (path) => {
    await expect(createInternalCaller(base, 'cart')('GET', path)).rejects.toMatchObject({ kind: 'unavailable', code: 'CART.REMOTE_ERROR' });
  });

  it('waits for an answer the whole time its deadline leaves, never less (undici would give up to 0.5 s less)', async () => {
    const call = createInternalCaller(base, 'order');
    // Calls begun at several points of undici's 499 ms tick, each with 1.99 s left and answered after 1.6 s.
    const answers = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        await new Promise((r) => setTimeout(r, i * 50));
        const started = performance.now();
        return withRequestContext({ requestId: `r${i}`, deadline: Date.now() + 1990 }, () => call('GET', '/slow')).then(
          (answer) => answer,
          (error: Error) => `${error.message} after ${Math.round(performance.now() - started)} ms`,
        );
      }),
    );
    expect(answers).toEqual(Array.from({ length: 10 }, () => ({ slow: true })));
  });

  it('treats a callee that does not answer as unavailable, naming the service', async () => {
    const error = await createInternalCaller('http://127.0.0.1:1', 'catalog')('GET', '/x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ kind: 'unavailable', fields: { catalog: 'unavailable (ECONNREFUSED)' } });
  });

  it('answers the callee’s JSON as bytes for a caller that passes it on, with the same null and errors', async () => {
    const { bytes: text } = createInternalCallers(base, 'cart');
    expect((await text('GET', '/ok'))!.toString('utf8')).toBe('{"a":1}');
    expect(await text('GET', '/missing')).toBeNull();
    await expect(text('POST', '/bad', {})).rejects.toMatchObject({
      code: 'CART.INVALID',
      kind: 'invalid',
      fields: { quantity: 'must be positive' },
    });
    await expect(text('GET', '/text')).rejects.toMatchObject({ kind: 'unavailable', code: 'CART.REMOTE_ERROR' });
    await expect(text('GET', '/broken')).rejects.toMatchObject({ kind: 'unavailable' });
  });
});
