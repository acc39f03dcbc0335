import { z } from 'zod';
import { loadConfig } from '@commerce/shared-config';
import { runService, startDbService } from '@commerce/shared-http';
import { ARGON2_DEFAULTS, buildAccountService } from '@commerce/account-adapters';

// argon2id cost: never below OWASP's floor (19 MiB, t = 2, p = 1) in a deployment; tests pass cheaper parameters in code.
const ConfigSchema = z.object({
  ARGON2_MEMORY_KIB: z.coerce.number().int().min(ARGON2_DEFAULTS.memoryKiB).default(ARGON2_DEFAULTS.memoryKiB),
  ARGON2_ITERATIONS: z.coerce.number().int().min(ARGON2_DEFAULTS.iterations).default(ARGON2_DEFAULTS.iterations),
});

runService('account', async () => {
  const config = loadConfig(ConfigSchema);
  return startDbService('account', 8083, async ({ db }) => {
    const account = await buildAccountService({
      db,
      argon2: { memoryKiB: config.ARGON2_MEMORY_KIB, iterations: config.ARGON2_ITERATIONS, parallelism: 1 },
    });
    return { routers: [account.router] };
  });
});
