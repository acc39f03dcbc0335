import { runService, startDbService } from '@commerce/shared-http';

// The payment service owns its schema from the start; its endpoints and consumers arrive with later
// issues. Until then it serves /healthz, /readyz (database) and /metrics.
runService('payment', () => startDbService('payment', 8084, async () => ({ routers: [] })));
