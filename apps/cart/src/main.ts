import { runService, startService } from '@commerce/shared-http';
import { cartModule } from '@commerce/cart-adapters';
import { ConfigSchema } from './config';

// Selections in the service's own schema; the edge changes and reads them over /internal/cart.
runService('cart', () => startService('cart', ConfigSchema, (p) => cartModule(p)));
