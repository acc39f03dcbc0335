import type { SoapProduct } from '@commerce/erp-contracts';
import type { DemoCatalog } from '@commerce/catalog-adapters';
import { createLogger } from '@commerce/shared-logging';
import { AllInOneConfigSchema } from '../../apps/all-in-one/src/config';
import { startAllInOne, type AllInOne } from '../../apps/all-in-one/src/all-in-one';
import type { Endpoints } from './skeleton.scenario';

/**
 * The all-in-one on embedded adapters (PGlite in memory, in-memory bus and sessions, embedded search) on
 * a free port with the demo store, and the endpoints of its public interfaces. `env` adds or overrides
 * configuration (e.g. a cheap argon2 cost).
 */
export async function startEmbeddedAllInOne(
  name: string,
  demo: DemoCatalog | SoapProduct[] = [],
  env: Record<string, string> = {},
): Promise<{ running: AllInOne; endpoints: Endpoints }> {
  const config = AllInOneConfigSchema.parse({
    PORT: '0',
    DATABASE_URL: 'pglite://memory',
    LOG_LEVEL: 'silent',
    STORE_CONFIG: 'infra/config/demo-store.json',
    ...env,
  });
  const running = await startAllInOne(config, createLogger(name, 'silent'), demo);
  return {
    running,
    endpoints: {
      checkout: `${running.url}/api/checkout`,
      soap: `${running.url}/ams/system/service/module/soap/api`,
      soapUser: { username: 'demo', password: 'demo-secret', namespace: 'urn:commerce-service:backoffice' },
    },
  };
}
