import { randomBytes } from 'node:crypto';
import type Router from '@koa/router';
import { migrate, type Db } from '@commerce/shared-db';
import type { AccountClient } from '@commerce/account-contracts';
import { accountUseCases } from '@commerce/account-core';
import { accountMigrations } from './account.migrations';
import { createCustomerRepository } from './customer.knex-repository';
import { createAccountInternalRouter } from './account.internal-routes';
import { ARGON2_DEFAULTS, createArgon2Hasher, type Argon2Params } from './argon2.password-hasher';

export interface AccountService {
  /** The use cases as a typed client: the in-process implementation of AccountClient. */
  client: AccountClient;
  router: Router;
}

/** Composition of the account service: migrations, repository, hasher (and its dummy hash), use cases, internal routes. */
export async function buildAccountService(deps: { db: Db; argon2?: Argon2Params }): Promise<AccountService> {
  await migrate(deps.db, accountMigrations);
  const hasher = createArgon2Hasher(deps.argon2 ?? ARGON2_DEFAULTS);
  const dummyHash = await hasher.hash(randomBytes(24).toString('base64url'));
  const client = accountUseCases({ customers: createCustomerRepository(deps.db), hasher, dummyHash });
  return { client, router: createAccountInternalRouter(client) };
}
