import { runService, startService } from '@commerce/shared-http';
import { catalogModule } from '@commerce/catalog-adapters';
import { ConfigSchema } from './config';

// Products, prices, stock and their search in the service's own schema and index; the edge reads and holds
// stock over /internal/catalog; catalog.* events leave through the outbox; the ERP's upserts arrive on backoffice.upsert.v1.
runService('catalog', () => startService('catalog', ConfigSchema, (p) => catalogModule(p.config, p)));
