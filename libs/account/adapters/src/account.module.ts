import type { z } from 'zod';
import type { CatalogClient } from '@commerce/catalog-contracts';
import { enginesOf, type ModuleContext, type ServiceEngines, type ServiceModule } from '@commerce/shared-http';
import { argon2Params, mailerOptions, type accountEnv } from './account.env';
import { buildAccountService, type AccountService } from './account.service';
import { createMailer } from './mailer';

export type AccountModuleConfig = z.infer<z.ZodObject<ReturnType<typeof accountEnv>>>;

/**
 * The account service as a process runs it: its mailer (SMTP_URL, or `.eml` files), customers and reset links
 * in its schema, the back-in-stock mails on the catalog's stock, its internal routes, its outbox pruned.
 */
export async function accountModule(
  config: AccountModuleConfig,
  context: ServiceEngines & ModuleContext & { catalog: Pick<CatalogClient, 'getItem'> },
): Promise<AccountService & ServiceModule> {
  const mailer = createMailer({ ...mailerOptions(config), logger: context.logger });
  context.closers.add(async () => mailer.close());
  const account = await buildAccountService({
    ...enginesOf(context),
    argon2: argon2Params(config),
    mailer,
    frontendUrl: context.store.frontendUrl,
    resetTtlMinutes: config.PASSWORD_RESET_TTL_MINUTES,
    catalog: context.catalog,
  });
  return Object.assign(account, { internalRouters: [account.router], retention: [] });
}
