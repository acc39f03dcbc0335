import { runService, startService } from '@commerce/shared-http';
import { createCatalogHttpClient } from '@commerce/catalog-contracts';
import { accountModule } from '@commerce/account-adapters';
import { ConfigSchema } from './config';

// Customers, credentials, reset links and subscriptions in the service's own schema; the edge reaches it over /internal/account.
runService('account', () =>
  startService('account', ConfigSchema, (p) => accountModule(p.config, { ...p, catalog: createCatalogHttpClient(p.config.CATALOG_URL) })),
);
