import { Router } from '@koa/router';
import { z } from 'zod';
import { outboxMigrations, type EventBus } from '@commerce/shared-bus';
import { databaseEnv, env, httpServiceEnv, kafkaNamingEnv, outboxEnv, retentionEnv } from '@commerce/shared-config';
import { migrate, type Db } from '@commerce/shared-db';
import type { ServiceModule } from './service-module';
import { startService } from './start-service';

/** A service with a schema, the bus, an outbox and its retention, as the database-and-bus services have. */
const DbServiceSchema = z.object({
  ...httpServiceEnv(0),
  ...databaseEnv('svc'),
  KAFKA_BROKERS: env.kafkaBrokers,
  ...kafkaNamingEnv(),
  ...outboxEnv(),
  ...retentionEnv(),
});
const vars = { HOST: '127.0.0.1', LOG_LEVEL: 'silent', DATABASE_URL: 'pglite://memory', KAFKA_BROKERS: 'memory', OUTBOX_POLL_MS: '250' };

const routerAnswering = (path: string, body: string) => {
  const router = new Router();
  router.get(path, (ctx) => {
    ctx.body = body;
  });
  return router;
};

// PGlite starts in a second or two, more on a busy machine.
jest.setTimeout(60_000);

describe('startService', () => {
  it("opens what the config names, serves the module's routes with its readiness and its outbox's metrics, and stops it before closing them", async () => {
    const events: string[] = [];
    let opened: { db: Db; bus: EventBus; outboxPollMs: number } | undefined;
    const running = await startService(
      'svc',
      DbServiceSchema,
      async ({ db, bus, outboxPollMs, closers }) => {
        opened = { db, bus, outboxPollMs };
        await migrate(db, outboxMigrations);
        closers.add(async () => void events.push('closer of the module'));
        const module: ServiceModule = {
          internalRouters: [routerAnswering('/internal/svc/ping', 'internal')],
          publicRouters: [routerAnswering('/public', 'public')],
          readiness: [{ name: 'thing', check: async () => undefined }],
          retention: [],
          start: async () => void events.push('start'),
          stop: async () => void events.push('stop'),
        };
        return module;
      },
      vars,
    );
    try {
      expect(opened?.outboxPollMs).toBe(250);
      expect(events).toEqual(['start']);
      expect(await (await fetch(`${running.url}/internal/svc/ping`)).text()).toBe('internal');
      expect(await (await fetch(`${running.url}/public`)).text()).toBe('public');
      const ready = await fetch(`${running.url}/readyz`);
      expect(ready.status).toBe(200);
      expect(Object.keys(((await ready.json()) as { checks: Record<string, string> }).checks)).toEqual(['database', 'thing']);
      // The retention pruner's registry: the outbox's backlog, read from the service's schema.
      expect(await (await fetch(`${running.url}/metrics`)).text()).toMatch(/^outbox_pending_events\{schema="svc"\} 0$/m);
    } finally {
      await running.close();
    }
    expect(events).toEqual(['start', 'stop', 'closer of the module']);
    await expect(opened!.db.ping()).rejects.toThrow();
  });

  it('releases what a start that fails had opened, and opens no database for a config without one', async () => {
    const released: string[] = [];
    let db: Db | undefined;
    await expect(
      startService(
        'svc',
        DbServiceSchema,
        async (p) => {
          db = p.db;
          p.closers.add(async () => void released.push('mailer'));
          throw new Error('search unreachable');
        },
        vars,
      ),
    ).rejects.toThrow('search unreachable');
    expect(released).toEqual(['mailer']);
    await expect(db!.ping()).rejects.toThrow();

    const EdgeSchema = z.object({ ...httpServiceEnv(0) });
    let keys: string[] = [];
    const edge = await startService(
      'edge',
      EdgeSchema,
      async (p) => {
        keys = Object.keys(p).sort();
        return { publicRouters: [routerAnswering('/api', 'edge')], readiness: [{ name: 'sessions', check: async () => undefined }] };
      },
      vars,
    );
    try {
      expect(keys).toEqual(['closers', 'config', 'logger']);
      const ready = (await (await fetch(`${edge.url}/readyz`)).json()) as { checks: Record<string, string> };
      expect(Object.keys(ready.checks)).toEqual(['sessions']);
    } finally {
      await edge.close();
    }
  });
});
