import type { z } from 'zod';
import { argon2Params } from '@commerce/account-contracts';
import { daysToMs, type receivedUpsertsRetentionEnv, type RetentionConfig } from '@commerce/shared-config';
import { enginesOf, type ModuleContext, type ServiceEngines, type ServiceModule } from '@commerce/shared-http';
import type { backofficeSoapEnv } from './backoffice-soap.env';
import { buildBackofficeService, type BackofficeService } from './backoffice.service';
import { receivedUpsertsRetention } from './received-upserts.store';

export type BackofficeModuleConfig = z.infer<z.ZodObject<ReturnType<typeof backofficeSoapEnv>>> &
  z.infer<z.ZodObject<ReturnType<typeof receivedUpsertsRetentionEnv>>> &
  Pick<RetentionConfig, 'RETENTION_INTERVAL_SECONDS'>;

/**
 * backoffice-soap as a process runs it: the SOAP API on the store's namespace and users (a public interface),
 * the change-event feed, the ERP's batches in its schema and their retention.
 */
export async function backofficeModule(
  config: BackofficeModuleConfig,
  context: ServiceEngines & ModuleContext,
): Promise<BackofficeService & ServiceModule> {
  const { soap } = context.store;
  const backoffice = await buildBackofficeService({
    ...enginesOf(context),
    namespace: soap.namespace,
    users: soap.users,
    correlationPrefix: soap.correlationPrefix,
    events: {
      echo: config.SOAP_ECHO_EVENTS,
      pageSize: config.EVENTS_PAGE_SIZE,
      retentionMs: daysToMs(config.CHANGE_EVENTS_RETENTION_DAYS),
      pruneIntervalMs: config.RETENTION_INTERVAL_SECONDS * 1000,
    },
    trustProxy: config.SOAP_TRUST_PROXY,
    streamPartSize: config.SOAP_STREAM_PART_SIZE,
    budget: { baseMs: config.SOAP_REQUEST_BUDGET_MS, perMbMs: config.SOAP_REQUEST_BUDGET_MS_PER_MB },
    // The account service's cost: a buyer who never logged in costs a login what anyone costs (decision 54).
    buyerPasswords: argon2Params(config),
  });
  return Object.assign(backoffice, {
    publicRouters: [backoffice.router],
    retention: [receivedUpsertsRetention(daysToMs(config.RECEIVED_UPSERTS_RETENTION_DAYS))],
  });
}
