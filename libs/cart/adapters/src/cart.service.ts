import type Router from '@koa/router';
import type { CurrencyFormat } from '@commerce/shared-config';
import { migrate, type Db } from '@commerce/shared-db';
import type { CartClient } from '@commerce/cart-contracts';
import type { LeanRoute } from '@commerce/shared-http';
import type { Logger } from '@commerce/shared-logging';
import { cartUseCases } from '@commerce/cart-core';
import { cartMigrations } from './cart.migrations';
import { createSelectionRepository } from './selection.knex-repository';
import { createCartInternalRouter, createCartLeanRoutes } from './cart.internal-routes';

export interface CartService {
  /** The use cases as a typed client: the in-process implementation of CartClient. */
  client: CartClient;
  router: Router;
  /** The selection changes answered before the router's app (decision 63), for a process serving the router over HTTP. */
  leanRoutes: LeanRoute[];
}

/** Composition of the cart: migrations, repository, use cases, internal routes. */
export async function buildCartService(deps: {
  db: Db;
  currencyFormat(currency: string): CurrencyFormat;
  /** Where a batched change's unexpected error is logged (the router's and lean routes' own errors log as their app's). */
  logger?: Logger;
}): Promise<CartService> {
  // A currency the store does not configure (a selection older than a configuration change) keeps ISO's usual 2.
  const digitsOf = (currency: string) => {
    try {
      return deps.currencyFormat(currency).decimalDigits;
    } catch {
      return 2;
    }
  };
  await migrate(deps.db, cartMigrations(digitsOf));
  const client = cartUseCases({ selections: createSelectionRepository(deps.db, digitsOf) });
  return { client, router: createCartInternalRouter(client, deps.logger), leanRoutes: createCartLeanRoutes(client, deps.logger) };
}
