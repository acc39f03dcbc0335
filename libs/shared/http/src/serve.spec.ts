import http from 'node:http';
import { Router } from '@koa/router';
import { Client } from 'undici';
import { createLogger } from '@commerce/shared-logging';
import { createHttpApp } from './http-app';
import { serve, type RunningServer } from './serve';

const logger = createLogger('serve-test', 'silent');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function slowApp(events: string[]) {
  const app = createHttpApp({ service: 'test', logger });
  const router = new Router();
  router.get('/slow/:ms', async (ctx) => {
    events.push('slow started');
    // unref'd: the request cut off by the shutdown timeout must not keep jest alive.
    await new Promise((r) => setTimeout(r, Number(ctx.params['ms'])).unref());
    events.push('slow finished');
    ctx.body = { done: true };
  });
  router.get('/fast', (ctx) => {
    ctx.body = { fast: true };
  });
  app.use(router.routes());
  return app;
}

describe('serve', () => {
  it('listens on the port it was given, 0 meaning any free one', async () => {
    const running = await serve(slowApp([]), { port: 0, host: '127.0.0.1', logger });
    try {
      expect(running.port).toBeGreaterThan(0);
      expect(running.url).toBe(`http://127.0.0.1:${running.port}`);
      expect((await fetch(`${running.url}/fast`)).status).toBe(200);
    } finally {
      await running.close();
    }
  });

  it('rejects when the port is taken', async () => {
    const first = await serve(slowApp([]), { port: 0, host: '127.0.0.1', logger });
    try {
      await expect(serve(slowApp([]), { port: first.port, host: '127.0.0.1', logger })).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await first.close();
    }
  });

  it('shares its port with other servers that reuse it (SO_REUSEPORT), the kernel spreading new connections over them', async () => {
    const named = (name: string) => {
      const app = createHttpApp({ service: name, logger });
      app.use((ctx) => {
        ctx.body = { name };
      });
      return app;
    };
    const first = await serve(named('first'), { port: 0, host: '127.0.0.1', reusePort: true, logger });
    const second = await serve(named('second'), { port: first.port, host: '127.0.0.1', reusePort: true, logger });
    // Each request on a connection of its own: the kernel picks a listener for every new connection.
    const answeredBy = () =>
      new Promise<string>((resolve, reject) =>
        http
          .get(`${first.url}/`, { agent: false }, (res) => {
            let text = '';
            res.on('data', (d: Buffer) => (text += d.toString()));
            res.on('end', () => resolve((JSON.parse(text) as { name: string }).name));
          })
          .on('error', reject),
      );
    try {
      const names = new Set<string>();
      for (let i = 0; i < 64 && names.size < 2; i++) names.add(await answeredBy());
      expect([...names].sort()).toEqual(['first', 'second']);
      // One replica gone, the other still takes the port's connections.
      await first.close();
      expect(await answeredBy()).toBe('second');
    } finally {
      await first.close();
      await second.close();
    }
  });

  describe('close', () => {
    let running: RunningServer;
    let events: string[];
    beforeEach(async () => {
      events = [];
      running = await serve(slowApp(events), {
        port: 0,
        host: '127.0.0.1',
        logger,
        onShutdown: [
          async () => {
            await sleep(20);
            events.push('consumers closed');
          },
          async () => {
            events.push('pool closed');
          },
        ],
      });
    });

    it('lets a request in flight finish, refuses new connections, then runs the hooks in order', async () => {
      // A kept-alive idle connection must not hold the shutdown open.
      const kept = new Client(running.url);
      const first = await kept.request({ path: '/fast', method: 'GET' });
      expect(first.statusCode).toBe(200);
      await first.body.dump();
      const slow = fetch(`${running.url}/slow/400`);
      await sleep(100);
      const started = Date.now();
      const closed = running.close().then(() => events.push('close resolved'));

      // A request on a connection kept alive from before is answered, and the connection closed after it
      // (a pod's clients are not cut off mid-request); a new connection is refused.
      const onKept = await kept.request({ path: '/fast', method: 'GET' });
      expect([onKept.statusCode, onKept.headers['connection']]).toEqual([200, 'close']);
      await onKept.body.dump();
      const fresh = new Client(running.url);
      await expect(fresh.request({ path: '/fast', method: 'GET' })).rejects.toThrow();
      await Promise.all([kept.close(), fresh.close()]);
      const res = await slow;
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ done: true });
      await closed;

      expect(Date.now() - started).toBeLessThan(2000);
      expect(events).toEqual(['slow started', 'slow finished', 'consumers closed', 'pool closed', 'close resolved']);
    });

    it('is idempotent: a second close returns the same shutdown and runs the hooks once', async () => {
      const a = running.close();
      const b = running.close();
      expect(a).toBe(b);
      await a;
      await running.close();
      expect(events.filter((e) => e === 'pool closed')).toHaveLength(1);
    });
  });

  it('closes the connections still busy after the shutdown timeout', async () => {
    const events: string[] = [];
    const running = await serve(slowApp(events), { port: 0, host: '127.0.0.1', logger, shutdownTimeoutMs: 200 });
    const stuck = fetch(`${running.url}/slow/5000`).then(
      () => 'answered',
      () => 'connection closed',
    );
    await sleep(100);
    const started = Date.now();
    await running.close();
    expect(Date.now() - started).toBeLessThan(1500);
    expect(await stuck).toBe('connection closed');
  });

  it('runs every hook even when one fails, then reports the failure', async () => {
    const ran: string[] = [];
    const running = await serve(slowApp([]), {
      port: 0,
      host: '127.0.0.1',
      logger,
      onShutdown: [
        async () => {
          throw new Error('relay stuck');
        },
        async () => {
          ran.push('pool');
        },
      ],
    });
    await expect(running.close()).rejects.toThrow(/1 shutdown hook\(s\) failed/);
    expect(ran).toEqual(['pool']);
  });
});
