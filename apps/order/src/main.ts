import { runService, startDbService } from '@commerce/shared-http';

// The order service owns its schema from the start; its endpoints and consumers arrive with later
// issues. Until then it serves /healthz, /readyz (database) and /metrics.
runService('order', () => startDbService('order', 8085, async () => ({ routers: [] })));
