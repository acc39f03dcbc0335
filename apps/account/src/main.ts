import { z } from 'zod';
import { loadConfig } from '@commerce/shared-config';
import { runService, startDbService } from '@commerce/shared-http';
import { accountEnv, argon2Params, buildAccountService } from '@commerce/account-adapters';

// Customers and credentials in the service's own schema; the edge reaches it over /internal/account.
runService('account', async () => {
  const config = loadConfig(z.object(accountEnv()));
  return startDbService('account', 8083, async ({ db }) => {
    const account = await buildAccountService({ db, argon2: argon2Params(config) });
    return { routers: [account.router] };
  });
});
