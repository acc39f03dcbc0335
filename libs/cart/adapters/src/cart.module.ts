import type { Db } from '@commerce/shared-db';
import { currencyFormats } from '@commerce/shared-config';
import type { ModuleContext, ServiceModule } from '@commerce/shared-http';
import { buildCartService, type CartService } from './cart.service';

/** The cart as a process runs it: selections in its schema, priced in the store's currency formats; its internal and lean routes. */
export async function cartModule(context: Pick<ModuleContext, 'logger' | 'store'> & { db: Db }): Promise<CartService & ServiceModule> {
  const cart = await buildCartService({ db: context.db, logger: context.logger, currencyFormat: currencyFormats(context.store) });
  return Object.assign(cart, { internalRouters: [cart.router] });
}
