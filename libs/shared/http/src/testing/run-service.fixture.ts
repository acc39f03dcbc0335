// A tiny composition root for run-service.spec.ts: `tsx run-service.fixture.ts <scenario>`.
import { ConfigError } from '@commerce/shared-config';
import { createLogger } from '@commerce/shared-logging';
import { createHttpApp } from '../http-app';
import { runService } from '../run-service';
import { serve } from '../serve';

class SessionStoreUnavailableError extends Error {
  override name = 'SessionStoreUnavailableError';
}

const scenario = process.argv[2];
const logger = createLogger('fixture', 'silent');

runService(
  'fixture',
  async () => {
    switch (scenario) {
      case 'config-error':
        throw new ConfigError('config: DATABASE_URL must be a postgres:// URL (got "foo")');
      case 'unavailable':
        throw new SessionStoreUnavailableError('session store: cannot reach redis://127.0.0.1:1 (ECONNREFUSED)');
      case 'flagged':
        throw Object.assign(new Error('catalog: store config file ./nope.json not found'), { startupFailure: true });
      case 'crash':
        throw new TypeError('cannot read properties of undefined');
      case 'serve':
      case 'close-fails': {
        const running = await serve(createHttpApp({ service: 'fixture', logger }), {
          port: 0,
          host: '127.0.0.1',
          logger,
          onShutdown: [
            async () => {
              if (scenario === 'close-fails') throw new Error('pool would not close');
              process.stdout.write('hooks ran\n');
            },
          ],
        });
        process.stdout.write(`listening ${running.url}\n`);
        return running;
      }
      case 'slow-close':
        process.stdout.write('listening\n');
        // Keeps the event loop alive while close() hangs, so only a second signal ends it.
        setInterval(() => undefined, 1000);
        return { close: () => new Promise<void>(() => undefined) };
      default:
        throw new Error(`unknown scenario ${scenario}`);
    }
  },
  { logger, ...(process.env['SHUTDOWN_GRACE_MS'] ? { shutdownGraceMs: Number(process.env['SHUTDOWN_GRACE_MS']) } : {}) },
);
