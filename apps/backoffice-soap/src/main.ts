import { runService, startService } from '@commerce/shared-http';
import { backofficeModule } from '@commerce/backoffice-adapters';
import { ConfigSchema } from './config';

// The back-office SOAP API: the ERP's batches in the service's own schema, handed on as backoffice.upsert.v1
// through the outbox; the change-event feed the ERP polls, from the services' events.
runService('backoffice-soap', () => startService('backoffice-soap', ConfigSchema, (p) => backofficeModule(p.config, p)));
