import { runService, startService } from '@commerce/shared-http';
import { paymentModule } from '@commerce/payment-adapters';
import { ConfigSchema } from './config';

// The payment service: attempts in its schema, `payment.payment.v1` through its outbox, the edge's
// questions at /internal/payment, the test providers' pages and the webhooks at /payment.
runService('payment', () => startService('payment', ConfigSchema, (p) => paymentModule(p.config, p)));
