import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Router } from '@koa/router';
import type Koa from 'koa';
import { DomainError, statusOfKind, type ErrorKind } from '@commerce/shared-errors';
import { Writable } from 'node:stream';
import pino from 'pino';
import { Gauge, Registry } from 'prom-client';
import { createLogDestination, createLogger, currentDeadline, currentRequestId, withRequestContext } from '@commerce/shared-logging';
import Redis from 'ioredis';
import { createDbEngine } from '@commerce/shared-db';
import { instrumentRedis } from '@commerce/shared-sessions';
import { kafkaRequestListener } from '@commerce/shared-bus';
import { createHttpApp, type HttpAppOptions } from './http-app';
import { mountRouters } from './mount-routers';
import { serve, type RunningServer } from './serve';
import { EVENT_LOOP_SAMPLE_MS } from './metrics.middleware';

const logger = createLogger('http-test', 'silent');

function withRoutes(app: Koa): Koa {
  const router = new Router();
  router.get('/items/:id', (ctx) => {
    ctx.body = { id: ctx.params['id'] };
  });
  router.post('/echo', (ctx) => {
    ctx.body = { body: ctx.request.body ?? null };
  });
  router.post('/soap', async (ctx) => {
    const chunks: Buffer[] = [];
    for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
    ctx.type = 'text/plain';
    ctx.body = `raw:${Buffer.concat(chunks).toString('utf8')} parsed:${ctx.request.rawBody === undefined ? 'no' : 'yes'}`;
  });
  router.get('/fail/:kind', (ctx) => {
    throw new DomainError('TEST.FAIL', ctx.params['kind'] as ErrorKind, { item: 'product item not found' }, { unavailable: [1] });
  });
  router.get('/boom', () => {
    throw new Error('secret connection string postgres://u:p@db');
  });
  router.get('/throw-403', (ctx) => ctx.throw(403, 'nope'));
  // A dependency that stalls: answers only after 3 s.
  router.get('/stall', async (ctx) => {
    await new Promise((r) => setTimeout(r, 3000).unref());
    ctx.body = { late: true };
  });
  router.get('/pg-read-timeout', () => {
    throw new Error('Query read timeout');
  });
  router.get('/deadline', (ctx) => {
    const deadline = currentDeadline();
    ctx.body = { left: deadline === undefined ? null : deadline - Date.now() };
  });
  mountRouters(app, [router]);
  return app;
}

/** A method fetch refuses to send (TRACE), over plain node:http. */
function rawRequest(url: string, method: string): Promise<{ status: number; allow?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ...(res.headers.allow ? { allow: res.headers.allow } : {}), body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('createHttpApp', () => {
  let running: RunningServer;
  let checks: { db: () => Promise<void> };
  const start = async (extra: Partial<HttpAppOptions> = {}) => {
    checks = { db: async () => undefined };
    const app = createHttpApp({
      service: 'test',
      logger,
      bodyLimit: '1kb',
      readiness: [{ name: 'db', check: () => checks.db() }],
      errorBody: (ctx) => ({ token: ctx.get('api-token') || 'new-token' }),
      ...extra,
    });
    running = await serve(withRoutes(app), { port: 0, host: '127.0.0.1', logger, shutdownTimeoutMs: 2000 });
  };
  const get = (path: string, init?: RequestInit) => fetch(`${running.url}${path}`, init);
  const postJson = (path: string, body: string, type = 'application/json') =>
    get(path, { method: 'POST', headers: { 'content-type': type }, body });

  beforeEach(() => start());
  afterEach(() => running.close());

  it('serves a mounted router', async () => {
    const res = await get('/items/7');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: '7' });
  });

  describe('error envelope', () => {
    it.each(Object.entries(statusOfKind))(
      'maps a DomainError of kind %s to %i with errors, extra and errorBody members',
      async (kind, status) => {
        const res = await get(`/fail/${kind}`, { headers: { 'api-token': 'tok-1' } });
        expect(res.status).toBe(status);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        expect(await res.json()).toEqual({ token: 'tok-1', errors: { item: 'product item not found' }, unavailable: [1] });
      },
    );

    it('answers malformed JSON with 400 errors.body', async () => {
      const res = await postJson('/echo', '{"a":');
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ token: 'new-token', errors: { body: 'malformed JSON' } });
    });

    it.each(['null', '3', '"text"', 'true'])(
      'answers well-formed JSON that is not an object (%s) with 400 errors.body "must be a JSON object"',
      async (text) => {
        const res = await postJson('/echo', text);
        expect(res.status).toBe(400);
        expect(await res.json()).toEqual({ token: 'new-token', errors: { body: 'must be a JSON object' } });
      },
    );

    it('answers a body above the limit with 413 errors.body', async () => {
      const res = await postJson('/echo', JSON.stringify({ a: 'x'.repeat(2000) }));
      expect(res.status).toBe(413);
      expect(await res.json()).toEqual({ token: 'new-token', errors: { body: 'too large' } });
    });

    it('answers an unknown route with 404 errors.path', async () => {
      const res = await get('/nowhere');
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toEqual({ token: 'new-token', errors: { path: 'not found' } });
    });

    it('answers a wrong method on a known route with 405 errors.method and an Allow header', async () => {
      const res = await get('/items/7', { method: 'DELETE' });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toContain('GET');
      expect(await res.json()).toEqual({ token: 'new-token', errors: { method: 'not allowed' } });
    });

    it("answers a method outside the router's usual list (TRACE) on a known route with 405 and Allow, not 501", async () => {
      const res = await rawRequest(`${running.url}/items/7`, 'TRACE');
      expect(res.status).toBe(405);
      expect(res.allow?.split(', ').sort()).toEqual(['GET', 'HEAD']);
      expect(JSON.parse(res.body)).toEqual({ token: 'new-token', errors: { method: 'not allowed' } });
    });

    it('answers TRACE on an unknown route with 404 errors.path', async () => {
      const res = await rawRequest(`${running.url}/nowhere`, 'TRACE');
      expect(res.status).toBe(404);
      expect(JSON.parse(res.body)).toEqual({ token: 'new-token', errors: { path: 'not found' } });
    });

    it('answers an unexpected error with 500 and leaks neither message nor stack', async () => {
      const res = await get('/boom');
      expect(res.status).toBe(500);
      const text = await res.text();
      expect(JSON.parse(text)).toEqual({ token: 'new-token', errors: { server: 'internal error' } });
      expect(text).not.toContain('postgres');
      expect(text).not.toContain('at ');
    });

    it('keeps the status of an http error thrown with ctx.throw', async () => {
      const res = await get('/throw-403');
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ token: 'new-token', errors: { request: 'nope' } });
    });

    it('still answers when errorBody itself throws', async () => {
      await running.close();
      await start({
        errorBody: () => {
          throw new Error('no token');
        },
      });
      const res = await get('/nowhere');
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ errors: { path: 'not found' } });
    });
  });

  describe('body parsing', () => {
    it('parses JSON bodies', async () => {
      const res = await postJson('/echo', '{"a":1}');
      expect(await res.json()).toEqual({ body: { a: 1 } });
    });

    it('leaves a text/xml body unread, for its route to stream with its own limit', async () => {
      const xml = '<soap:Envelope><x>1</x></soap:Envelope>';
      const res = await postJson('/soap', xml, 'text/xml; charset=utf-8');
      expect(res.status).toBe(200);
      expect(await res.text()).toBe(`raw:${xml} parsed:no`);
    });

    it('gives no parsed body for an unsupported content type', async () => {
      const res = await postJson('/echo', 'a=1', 'application/x-www-form-urlencoded');
      expect(res.status).toBe(200);
      const { body } = (await res.json()) as { body: unknown };
      expect(body === null || (typeof body === 'object' && Object.keys(body).length === 0)).toBe(true);
    });
  });

  describe('health', () => {
    it('answers /healthz with ok', async () => {
      const res = await get('/healthz');
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: 'ok' });
    });

    it('answers /readyz with ready when every check passes', async () => {
      const res = await get('/readyz');
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: 'ready', checks: { db: 'ok' } });
    });

    it('answers /readyz with 503 naming the failing check', async () => {
      checks.db = async () => {
        throw new Error('connection refused');
      };
      const res = await get('/readyz');
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ status: 'not ready', checks: { db: 'connection refused' } });
    });

    it('answers /readyz with 503 when a check does not answer within 2 s', async () => {
      checks.db = () => new Promise(() => undefined);
      const res = await get('/readyz');
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ status: 'not ready', checks: { db: 'timed out after 2000 ms' } });
    }, 5000);

    it('answers /readyz with 503 once shutdown has begun', async () => {
      const app = withRoutes(createHttpApp({ service: 'test', logger }));
      const closing = await serve(app, { port: 0, host: '127.0.0.1', logger });
      // A second listener on the same app stands in for the load balancer's probe during the drain.
      const probe = http.createServer(app.callback());
      await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
      const probeUrl = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
      try {
        expect((await fetch(`${probeUrl}/readyz`)).status).toBe(200);
        await closing.close();
        const res = await fetch(`${probeUrl}/readyz`);
        expect(res.status).toBe(503);
        expect(await res.json()).toMatchObject({ status: 'not ready' });
      } finally {
        probe.closeAllConnections();
        await new Promise((r) => probe.close(r));
      }
    });
  });

  describe('request id', () => {
    it('echoes the x-request-id of the caller', async () => {
      const res = await get('/items/1', { headers: { 'x-request-id': 'abc-123' } });
      expect(res.headers.get('x-request-id')).toBe('abc-123');
    });

    it('writes one access line per request, carrying the request id, and keeps probes at debug', async () => {
      const lines: Array<Record<string, unknown>> = [];
      const sink = new Writable({
        write(chunk: Buffer, _enc, done) {
          lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
          done();
        },
      });
      const captured = pino({ level: 'debug', mixin: () => ({ requestId: currentRequestId() }) }, sink);
      const app = createHttpApp({ service: 'test', logger: captured });
      const router = new Router();
      router.get('/inner', (ctx) => {
        captured.info('inside the handler');
        ctx.body = {};
      });
      app.use(router.routes());
      const other = await serve(app, { port: 0, host: '127.0.0.1', logger });
      try {
        await fetch(`${other.url}/inner`, { headers: { 'x-request-id': 'req-9' } });
        await fetch(`${other.url}/healthz`);
      } finally {
        await other.close();
      }
      expect(lines.find((l) => l['msg'] === 'inside the handler')).toMatchObject({ requestId: 'req-9' });
      const access = lines.filter((l) => l['msg'] === 'request');
      expect(access).toHaveLength(2);
      expect(access[0]).toMatchObject({ level: 30, method: 'GET', path: '/inner', status: 200, requestId: 'req-9' });
      expect(typeof access[0]?.['ms']).toBe('number');
      expect(access[1]).toMatchObject({ level: 20, path: '/healthz', status: 200 });
    });

    it('makes one when the caller sent none', async () => {
      const a = await get('/items/1');
      const b = await get('/items/1');
      expect(a.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
    });
  });

  describe('metrics', () => {
    it('exposes the request-duration histogram labelled by matched route', async () => {
      await get('/items/42');
      await get('/nowhere/9');
      const res = await get('/metrics');
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).toMatch(/http_request_duration_seconds_bucket\{[^}]*route="\/items\/:id"[^}]*status="200"/);
      expect(text).toMatch(/http_request_duration_seconds_count\{[^}]*route="<unmatched>"[^}]*status="404"/);
      expect(text).not.toContain('/items/42');
      expect(text).toContain('process_cpu_user_seconds_total');
    });

    it('keeps a registry per app, so two apps in one process do not clash', async () => {
      const second = await serve(withRoutes(createHttpApp({ service: 'second', logger })), { port: 0, host: '127.0.0.1', logger });
      try {
        await get('/items/1');
        const text = await (await fetch(`${second.url}/metrics`)).text();
        expect(text).toContain('http_request_duration_seconds');
        expect(text).not.toMatch(/route="\/items\/:id"/);
      } finally {
        await second.close();
      }
    });

    it('counts in log_lines_dropped_total the log lines a log reader that does not keep up made us drop', async () => {
      const dropped = async () =>
        Number((await (await get('/metrics')).text()).match(/^log_lines_dropped_total(?:\{[^}]*\})? (\d+)$/m)?.[1]);
      const before = await dropped();
      const stalled = new Writable({ write: () => undefined });
      const slowLog = createLogger('slow', 'info', createLogDestination(stalled, { maxBacklogBytes: 1024 }));
      for (let i = 0; i < 100; i++) slowLog.info({ i }, 'a line nobody reads');
      expect(before).toBeGreaterThanOrEqual(0);
      expect((await dropped()) - before).toBeGreaterThan(50);
    });

    it('serves the registries it is given beside its own, such as the outbox backlog', async () => {
      const extra = new Registry();
      new Gauge({ name: 'outbox_pending_events', help: 'backlog', labelNames: ['schema'], registers: [extra] }).set(
        { schema: 'catalog' },
        3,
      );
      await running.close();
      await start({ metricsRegistries: [extra] });

      const text = await (await get('/metrics')).text();

      expect(text).toMatch(/^outbox_pending_events\{schema="catalog"\} 3$/m);
      expect(text).toContain('http_request_duration_seconds');
      expect(text).toContain('process_cpu_user_seconds_total');
    });

    it('serves the event-loop delay as a histogram: a 120 ms block shows in its buckets above 100 ms (issue 28)', async () => {
      const series = async () => {
        const text = await (await get('/metrics')).text();
        const bucket = (le: string) =>
          Number(text.match(new RegExp(`^nodejs_eventloop_delay_seconds_bucket\\{le="${le.replace('+', '\\+')}"\\} (\\d+)$`, 'm'))?.[1]);
        return {
          over100ms: bucket('+Inf') - bucket('0.1'),
          all: bucket('+Inf'),
          count: Number(text.match(/^nodejs_eventloop_delay_seconds_count (\d+)$/m)?.[1]),
        };
      };
      const before = await series();
      await new Promise((r) => setTimeout(r, 50));
      const blockedUntil = Date.now() + 120;
      while (Date.now() < blockedUntil);
      await new Promise((r) => setTimeout(r, 50));
      const after = await series();
      expect(after.count).toBe(after.all);
      expect(after.count).toBeGreaterThan(before.count);
      expect(after.over100ms - before.over100ms).toBeGreaterThanOrEqual(1);
    });

    it('reads an idle event loop as no delay, not as the period of its timer (issue 28)', async () => {
      const buckets = async () => {
        const text = await (await get('/metrics')).text();
        const bucket = (le: string) =>
          Number(text.match(new RegExp(`^nodejs_eventloop_delay_seconds_bucket\\{le="${le}"\\} (\\d+)$`, 'm'))?.[1]);
        return { within5ms: bucket('0.005'), all: bucket('\\+Inf') };
      };
      const before = await buckets();
      await new Promise((r) => setTimeout(r, 500));
      const after = await buckets();
      const samples = after.all - before.all;
      // ~25 samples of an idle loop: the period counted as delay put each at ~20 ms, none within 5 ms.
      expect(samples).toBeGreaterThanOrEqual(10);
      expect(after.within5ms - before.within5ms).toBeGreaterThanOrEqual(samples / 2);
    });

    it('wakes an idle process once a period for both event-loop samplers, not 100 times a second (decision 197)', async () => {
      const read = async () => {
        const text = await (await get('/metrics')).text();
        const value = (name: string) => Number(text.match(new RegExp(`^${name} (\\S+)$`, 'm'))?.[1]);
        return { samples: value('nodejs_eventloop_delay_seconds_count'), lagMin: value('nodejs_eventloop_lag_min_seconds') };
      };
      const before = await read();
      const from = Date.now();
      await new Promise((r) => setTimeout(r, 1000));
      const after = await read();
      const periods = (Date.now() - from) / EVENT_LOOP_SAMPLE_MS;
      // Ours: one sample a period at most (a loaded machine runs the timer late, never early by a whole period).
      expect(after.samples - before.samples).toBeLessThanOrEqual(periods + 2);
      expect(after.samples - before.samples).toBeGreaterThanOrEqual(periods / 4);
      // prom-client's: its shortest interval since the last scrape is its period (it keeps the period in), ours.
      expect(after.lagMin).toBeGreaterThanOrEqual((EVENT_LOOP_SAMPLE_MS * 0.9) / 1000);
    });

    it('counts the SQL statements of the process (transactions with BEGIN and COMMIT) in db_statements_total, by request context or none (issue 28)', async () => {
      const statements = async (context: string) =>
        Number(
          (await (await get('/metrics')).text()).match(new RegExp(`^db_statements_total\\{context="${context}"\\} (\\d+)$`, 'm'))?.[1] ?? 0,
        );
      const engine = await createDbEngine('pglite://memory');
      try {
        const [asked, unasked] = [await statements('request'), await statements('none')];
        await withRequestContext({ requestId: 'r1' }, async () => {
          await engine.knex.raw('select 1');
          await engine.forSchema('public').query('select 2', []);
          await engine.knex.transaction((trx) => trx.raw('select 3'));
        });
        await engine.knex.raw('select 4');
        expect((await statements('request')) - asked).toBe(5);
        expect((await statements('none')) - unasked).toBe(1);
      } finally {
        await engine.close();
      }
    }, 60_000);

    it('counts the requests of the Kafka clients by API in kafka_requests_total (issue 28)', async () => {
      const count = async (api: string) =>
        Number((await (await get('/metrics')).text()).match(new RegExp(`^kafka_requests_total\\{api="${api}"\\} (\\d+)$`, 'm'))?.[1] ?? 0);
      const [fetches, commits] = [await count('Fetch'), await count('OffsetCommit')];
      // What the Kafka bus hands each kafkajs client's REQUEST events to.
      kafkaRequestListener({ payload: { apiName: 'Fetch' } });
      kafkaRequestListener({ payload: { apiName: 'Fetch' } });
      kafkaRequestListener({ payload: { apiName: 'OffsetCommit' } });
      expect([(await count('Fetch')) - fetches, (await count('OffsetCommit')) - commits]).toEqual([2, 1]);
    });

    it('times Redis commands by command in redis_command_seconds (issue 28)', async () => {
      const count = async () =>
        Number((await (await get('/metrics')).text()).match(/^redis_command_seconds_count\{command="get"\} (\d+)$/m)?.[1] ?? 0);
      const before = await count();
      const redis = instrumentRedis(new Redis({ lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0 }));
      // No server: the command fails at once, and is timed all the same.
      await redis.get('k').catch(() => undefined);
      redis.disconnect();
      expect((await count()) - before).toBe(1);
    });

    it('serves no /metrics when metrics are off', async () => {
      await running.close();
      await start({ metrics: false });
      expect((await get('/metrics')).status).toBe(404);
    });
  });

  describe('deadlines (decision 132)', () => {
    it('answers 503 temporarily unavailable with Retry-After when the budget runs out, not when the stall ends', async () => {
      await running.close();
      await start({ requestBudgetMs: 300 });
      const started = performance.now();
      const res = await get('/stall');
      const ms = performance.now() - started;
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(await res.json()).toEqual({ token: 'new-token', errors: { server: 'temporarily unavailable' } });
      expect(ms).toBeGreaterThanOrEqual(290);
      expect(ms).toBeLessThan(1500);
    });

    it('keeps the earlier of its budget and the deadline its caller names (x-request-deadline)', async () => {
      await running.close();
      await start({ requestBudgetMs: 2000 });
      const named = (await (await get('/deadline', { headers: { 'x-request-deadline': '150' } })).json()) as { left: number };
      expect(named.left).toBeGreaterThan(100);
      expect(named.left).toBeLessThanOrEqual(150);
      const own = (await (await get('/deadline', { headers: { 'x-request-deadline': '60000' } })).json()) as { left: number };
      expect(own.left).toBeGreaterThan(1900);
      expect(own.left).toBeLessThanOrEqual(2000);
      const started = performance.now();
      expect((await get('/stall', { headers: { 'x-request-deadline': '200' } })).status).toBe(503);
      expect(performance.now() - started).toBeLessThan(1500);
    });

    it('has no deadline without a budget or a caller naming one, and never one for the probes', async () => {
      expect(await (await get('/deadline')).json()).toEqual({ left: null });
      await running.close();
      await start({ requestBudgetMs: 100 });
      checks.db = () => new Promise((r) => setTimeout(r, 300));
      expect((await get('/readyz')).status).toBe(200);
    });

    it('answers an engine that did not answer in time (pg: Query read timeout) 503 with Retry-After, not 500', async () => {
      const res = await get('/pg-read-timeout');
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(await res.json()).toEqual({ token: 'new-token', errors: { server: 'temporarily unavailable' } });
    });
  });
});
