import { Router } from '@koa/router';
import { DomainError, ValidationError } from '@commerce/shared-errors';
import { createLogger, currentRequestId } from '@commerce/shared-logging';
import { createHttpApp } from './http-app';
import { mountRouters } from './mount-routers';
import { withCodes } from './internal-route';
import { serve, type RunningServer } from './serve';
import type { LeanRoute } from './lean-route';

const logger = createLogger('lean-test', 'silent');

/** One handler, served both ways: on the router with `withCodes`, and as a lean route. */
const handle = async (id: string, body: unknown): Promise<unknown> => {
  const { n } = body as { n?: unknown };
  if (id === 'gone') throw new DomainError('TEST.GONE', 'not_found', { thing: 'not found' });
  if (id === 'busy') throw new DomainError('TEST.BUSY', 'unavailable', { thing: 'busy' }, {}, { 'Retry-After': '3' });
  if (id === 'boom') throw new Error('secret');
  if (typeof n !== 'number') throw new ValidationError({ n: 'must be a number' });
  return { id, n, requestId: currentRequestId() ?? null };
};
const passes = (err: DomainError) => err.code === 'TEST.GONE' || err.code === 'TEST.BUSY';
const leanRoute: LeanRoute = {
  method: 'POST',
  route: '/things/:id/changes',
  path: /^\/things\/([^/]+)\/changes$/,
  handle: ([id], body) => handle(id!, body),
  passes,
};

async function start(lean: boolean): Promise<RunningServer> {
  const app = createHttpApp({ service: 'lean-test', logger });
  const router = new Router();
  router.post(
    '/things/:id/changes',
    withCodes((ctx) => handle(ctx.params['id']!, (ctx.request as { body?: unknown }).body), { passes }),
  );
  mountRouters(app, [router]);
  return serve(app, { port: 0, host: '127.0.0.1', logger, ...(lean ? { leanRoutes: [leanRoute] } : {}) });
}

/** An app served twice for the suite: with only its Koa app, and with its lean routes in front. */
function servedBothWays(start: (lean: boolean) => Promise<RunningServer>): { koa: RunningServer; lean: RunningServer } {
  const served = {} as { koa: RunningServer; lean: RunningServer };
  beforeAll(async () => {
    [served.koa, served.lean] = await Promise.all([start(false), start(true)]);
  });
  afterAll(async () => {
    await Promise.all([served.koa.close(), served.lean.close()]);
  });
  return served;
}

describe('lean routes (decision 63)', () => {
  const served = servedBothWays(start);

  const post = async (server: RunningServer, path: string, body: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    return {
      status: res.status,
      type: res.headers.get('content-type'),
      retryAfter: res.headers.get('retry-after'),
      body: await res.text(),
    };
  };

  it.each([
    ['an answer', '/things/7/changes', '{"n":1}'],
    ['a domain error with its code', '/things/7/changes', '{"n":"x"}'],
    ['a domain error left to the error middleware (a bare 404)', '/things/gone/changes', '{"n":1}'],
    ['a passed domain error with its headers', '/things/busy/changes', '{"n":1}'],
    ['an unexpected error', '/things/boom/changes', '{"n":1}'],
    ['malformed JSON', '/things/7/changes', '{"n":'],
    ['JSON that is not an object or array', '/things/7/changes', '"n"'],
    ['JSON null', '/things/7/changes', 'null'],
    ['a JSON number', '/things/7/changes', ' 3'],
    ['a body with a __proto__ key (data, not malformed JSON)', '/things/7/changes', '{"n":1,"__proto__":{"x":1}}'],
    ['a percent-encoded parameter', '/things/a%20b/changes', '{"n":2}'],
  ])('answers %s exactly as the app does', async (_what, path, body) => {
    const [viaKoa, viaLean] = await Promise.all([post(served.koa, path, body), post(served.lean, path, body)]);
    // The request ids differ (each server makes its own): compare everything else.
    const withoutId = (text: string) => text.replace(/"requestId":"[^"]*"/, '"requestId":"…"');
    expect({ ...viaLean, body: withoutId(viaLean.body) }).toEqual({ ...viaKoa, body: withoutId(viaKoa.body) });
    expect(viaLean.status).toBeGreaterThanOrEqual(200);
  });

  it('answers a change on the lean route, with the caller’s request id in the context and on the answer', async () => {
    const res = await fetch(`${served.lean.url}/things/7/changes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'req-42' },
      body: '{"n":5}',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('req-42');
    expect(await res.json()).toEqual({ id: '7', n: 5, requestId: 'req-42' });
  });

  it('leaves other content types, other methods and other paths to the app', async () => {
    const text = await fetch(`${served.lean.url}/things/7/changes`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '{"n":1}',
    });
    expect(text.status).toBe(400);
    expect(await text.json()).toMatchObject({ code: 'REQUEST.INVALID', errors: { n: 'must be a number' } });
    const put = await fetch(`${served.lean.url}/things/7/changes`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(put.status).toBe(405);
    const elsewhere = await fetch(`${served.lean.url}/things/7/other`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(await elsewhere.json()).toEqual({ errors: { path: 'not found' } });
  });

  it('counts its requests in the app’s request-duration metric under the route’s pattern', async () => {
    await post(served.lean, '/things/9/changes', '{"n":1}');
    const metrics = await (await fetch(`${served.lean.url}/metrics`)).text();
    expect(metrics).toMatch(
      /http_request_duration_seconds_count\{service="lean-test",method="POST",route="\/things\/:id\/changes",status="200"\} [1-9]/,
    );
  });
});

describe('a lean route answering its JSON in parts', () => {
  // Multi-byte text, an empty part and a large one: the parts are written one after the other.
  const parts = [Buffer.from('{"token":"ä€",'), Buffer.alloc(0), Buffer.from(`"rest":"${'x'.repeat(20_000)}","ü":1}`)];
  const whole = Buffer.concat(parts);
  let server: RunningServer;
  beforeAll(async () => {
    const app = createHttpApp({ service: 'lean-test', logger });
    const route: LeanRoute = {
      method: 'GET',
      route: '/parts',
      path: /^\/parts$/,
      bodyless: true,
      handle: async () => ({}),
      json: () => parts,
    };
    server = await serve(app, { port: 0, host: '127.0.0.1', logger, leanRoutes: [route] });
  });
  afterAll(() => server.close());

  it('sends the bytes of the parts joined, with their whole length, and serves the next request on the connection', async () => {
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${server.url}/parts`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-length')).toBe(String(whole.length));
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(Buffer.from(await res.arrayBuffer()).equals(whole)).toBe(true);
    }
  });
});

describe('a lean route writing its own answer (respond)', () => {
  let server: RunningServer;
  beforeAll(async () => {
    const app = createHttpApp({ service: 'lean-test', logger });
    const route = (path: string, respond: LeanRoute['respond']): LeanRoute => ({
      method: 'GET',
      route: path,
      path: new RegExp(`^${path}$`),
      bodyless: true,
      handle: async () => ({}),
      errorBody: () => ({ token: 't' }),
      respond,
    });
    const leanRoutes = [
      route('/away', (_answer, ctx) => {
        ctx.status = 303;
        ctx.set('Location', '/there');
        ctx.body = '';
      }),
      route('/broken', () => {
        throw new Error('writer failed');
      }),
    ];
    server = await serve(app, { port: 0, host: '127.0.0.1', logger, leanRoutes });
  });
  afterAll(() => server.close());

  it('answers a writer that throws as an error in the route’s shape, not a hanging request', async () => {
    const res = await fetch(`${server.url}/broken`, { signal: AbortSignal.timeout(3000) });
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ token: 't', errors: { server: 'internal error' } });
  });

  it('counts the status its writer set (a redirect’s 303), not the one it was given', async () => {
    const res = await fetch(`${server.url}/away`, { redirect: 'manual' });
    expect(res.status).toBe(303);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toMatch(/http_request_duration_seconds_count\{service="lean-test",method="GET",route="\/away",status="303"\} 1/);
    expect(metrics).not.toMatch(/route="\/away",status="200"/);
  });
});

describe('lean routes that open their requests (decision 67)', () => {
  // As the checkout's session: opened before the body, its name in every error body and on every answer.
  const open = async (header: string | string[] | undefined): Promise<string> => {
    if (header === 'down') throw new DomainError('TEST.DOWN', 'unavailable', { store: 'unavailable' });
    if (header === 'boom') throw new Error('secret');
    return typeof header === 'string' && header ? `session-of-${header}` : 'new-session';
  };
  const errorBody = (asked: string | string[] | undefined, opened: string | undefined) =>
    opened ? { who: opened } : typeof asked === 'string' && asked ? { who: asked } : {};
  const answer = async (who: string, id: string, body: unknown) => {
    if (id === 'gone') throw new DomainError('TEST.GONE', 'not_found', { thing: 'not found' });
    if (id === 'boom') throw new Error('secret');
    return { who, id, body };
  };
  const leanRoute: LeanRoute<string> = {
    method: 'POST',
    route: '/things/:id',
    path: /^\/things\/([^/]+)$/,
    bodyless: true,
    open: (req) => open(req.headers['x-who']),
    errorBody: (req, opened) => errorBody(req.headers['x-who'], opened),
    headers: (who) => ({ 'X-Who': who }),
    passes: () => true,
    handle: ([id], body, who) => answer(who, id!, body),
  };

  async function start(lean: boolean): Promise<RunningServer> {
    const app = createHttpApp({
      service: 'lean-open-test',
      logger,
      errorBody: (ctx) => errorBody(ctx.req.headers['x-who'], ctx.state['who'] as string | undefined),
      beforeBody: [
        async (ctx, next) => {
          ctx.state['who'] = await open(ctx.req.headers['x-who']);
          ctx.set('X-Who', ctx.state['who'] as string);
          await next();
        },
      ],
    });
    const router = new Router();
    router.post('/things/:id', async (ctx) => {
      ctx.body = await answer(ctx.state['who'] as string, ctx.params['id']!, (ctx.request as { body?: unknown }).body);
    });
    mountRouters(app, [router]);
    return serve(app, { port: 0, host: '127.0.0.1', logger, ...(lean ? { leanRoutes: [leanRoute as LeanRoute] } : {}) });
  }

  const served = servedBothWays(start);

  const ask = async (server: RunningServer, path: string, headers: Record<string, string>, body?: string) => {
    const res = await fetch(`${server.url}${path}`, { method: 'POST', headers, ...(body === undefined ? {} : { body }) });
    return { status: res.status, type: res.headers.get('content-type'), who: res.headers.get('x-who'), body: await res.text() };
  };

  it.each([
    ['an answer', '/things/7', { 'x-who': 'ann', 'content-type': 'application/json' }, '{"n":1}'],
    ['no body and no type', '/things/7', { 'x-who': 'ann' }, undefined],
    ['a new session', '/things/7', {}, undefined],
    ['a domain error, enveloped', '/things/gone', { 'x-who': 'ann' }, undefined],
    ['an unexpected error, enveloped', '/things/boom', { 'x-who': 'ann' }, undefined],
    ['malformed JSON, enveloped', '/things/7', { 'x-who': 'ann', 'content-type': 'application/json' }, '{"n":'],
    ['an open that fails with a domain error', '/things/7', { 'x-who': 'down' }, undefined],
    ['an open that fails unexpectedly', '/things/7', { 'x-who': 'boom', 'content-type': 'application/json' }, '{"n":1}'],
    ['a query string (the app’s)', '/things/7?pretty', { 'x-who': 'ann' }, undefined],
  ])('answers %s exactly as the app does', async (_what, path, headers, body) => {
    const [viaKoa, viaLean] = await Promise.all([ask(served.koa, path, headers, body), ask(served.lean, path, headers, body)]);
    expect(viaLean).toEqual(viaKoa);
    expect(viaLean.status).toBeGreaterThanOrEqual(200);
  });

  it('is refused beside an app with errorBody or beforeBody when it does not open and envelope its requests', async () => {
    const { startHttpService } = await import('./http-service');
    const plain: LeanRoute = { method: 'POST', route: '/x', path: /^\/x$/, handle: async () => ({}) };
    await expect(
      startHttpService({ service: 'mixed', logger, routers: [], port: 0, host: '127.0.0.1', errorBody: () => ({}), leanRoutes: [plain] }),
    ).rejects.toThrow(/opens and envelopes/);
  });
});

describe('a lean route’s deadline (decision 132)', () => {
  const BUDGET_MS = 150;
  const OPEN_MS = 40;
  /** Opens in 40 ms; `stall` never answers, anything else answers at once. */
  const timed: LeanRoute<string> = {
    method: 'POST',
    route: '/timed/:id',
    path: /^\/timed\/([^/]+)$/,
    bodyless: true,
    open: () => new Promise((resolve) => setTimeout(() => resolve('opened'), OPEN_MS)),
    handle: ([id], _body, opened) => (id === 'stall' ? new Promise(() => undefined) : Promise.resolve({ id, opened })),
  };
  let server: RunningServer;
  beforeAll(async () => {
    const app = createHttpApp({ service: 'lean-deadline', logger });
    server = await serve(app, { port: 0, host: '127.0.0.1', logger, leanRoutes: [timed as LeanRoute], requestBudgetMs: BUDGET_MS });
  });
  afterAll(() => server.close());

  it('answers 503 with Retry-After once the budget has run out, its open included', async () => {
    const started = performance.now();
    const res = await fetch(`${server.url}/timed/stall`, { method: 'POST' });
    const ms = performance.now() - started;
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).not.toBeNull();
    // The budget plus the 50 ms backstop, not the stall (which never ends); generous above for a loaded machine.
    expect(ms).toBeGreaterThanOrEqual(BUDGET_MS);
    expect(ms).toBeLessThan(BUDGET_MS + 2_000);
  });

  it('races its opening and its handling against one timer (decision 190)', async () => {
    // The deadline's timers: what is left of the budget plus the 50 ms backstop (the open's own timer is not one).
    const deadlineTimers: number[] = [];
    const realSetTimeout = global.setTimeout as (fn: unknown, ms?: number, ...args: unknown[]) => NodeJS.Timeout;
    const spy = jest.spyOn(global, 'setTimeout').mockImplementation(((fn: unknown, ms?: number, ...args: unknown[]) => {
      if (ms !== undefined && ms !== OPEN_MS && ms <= BUDGET_MS + 50) deadlineTimers.push(ms);
      return realSetTimeout(fn, ms, ...args);
    }) as typeof setTimeout);
    try {
      const res = await fetch(`${server.url}/timed/ok`, { method: 'POST' });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ id: 'ok', opened: 'opened' });
    } finally {
      spy.mockRestore();
    }
    expect(deadlineTimers).toHaveLength(1);
  });
});
