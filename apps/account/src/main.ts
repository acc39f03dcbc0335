import { runService, startDbService } from '@commerce/shared-http';

// The account service owns its schema from the start; its endpoints and consumers arrive with later
// issues. Until then it serves /healthz, /readyz (database) and /metrics.
runService('account', () => startDbService('account', 8083, async () => ({ routers: [] })));
