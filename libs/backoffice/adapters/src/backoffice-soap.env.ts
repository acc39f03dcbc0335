import { z } from 'zod';
import { boundedInt } from '@commerce/shared-config';
import { argon2Env } from '@commerce/account-contracts';

const flag = (description: string) =>
  z
    .enum(['true', 'false', '1', '0', ''])
    .default('false')
    .describe(description)
    .transform((v) => v === 'true' || v === '1');

/** backoffice-soap's own variables, for the backoffice-soap and all-in-one config schemas. */
export const backofficeSoapEnv = () => ({
  /** The argon2id cost of buyers' passwords (accounts_Update): set as the account service's (decision 54). */
  ...argon2Env(),
  /** `true`: changes made through SOAP come back as change events too (off: the ERP knows what it sent). */
  SOAP_ECHO_EVENTS: flag(
    '`true`: changes made through SOAP come back in the change-event feed too (see [The SOAP change-event feed](operations.md#the-soap-change-event-feed)).',
  ),
  /** Days a change event every SOAP user has marked done is kept before it is pruned. */
  CHANGE_EVENTS_RETENTION_DAYS: z.coerce
    .number()
    .min(1)
    .default(30)
    .describe('How long a change event every configured SOAP user has marked done is kept (pruned every `RETENTION_INTERVAL_SECONDS`).'),
  /** Most events one `events_Get` returns. */
  EVENTS_PAGE_SIZE: boundedInt(1, 1000, 100).describe('Most events one `events_Get` / `events_GetByMarkets` returns.'),
  /**
   * `true` behind one ingress that appends the client's address to `X-Forwarded-For`: failed logins are
   * counted per that address (its last entry) instead of the ingress's own.
   */
  SOAP_TRUST_PROXY: flag(
    '`true` behind one ingress that appends the client to `X-Forwarded-For`: failed SOAP logins are counted per that address (see [SOAP users](operations.md#soap-users-and-their-passwords)).',
  ),
  /**
   * Entities of an `*_Update` handed to the store at a time as the request is parsed (decision 91); `0`: the
   * batch is parsed whole before anything is written.
   */
  SOAP_REQUEST_BUDGET_MS: boundedInt(100, 120_000, 2000).describe(
    'The time a SOAP request is given once its body is read, besides `SOAP_REQUEST_BUDGET_MS_PER_MB` for each MB of its XML (ms): past it the answer is a `Server` Fault (`BACKOFFICE.UNAVAILABLE`) with `Retry-After`, and the statements it waits on give up (decision 142).',
  ),
  SOAP_REQUEST_BUDGET_MS_PER_MB: boundedInt(0, 120_000, 1000).describe(
    "What each MB of a SOAP request's XML adds to `SOAP_REQUEST_BUDGET_MS` (ms): a batch's parse and store grow with it (a 1,000-product batch of 6.6 MB takes about 0.6 s here; its budget is 8.6 s).",
  ),
  SOAP_STREAM_PART_SIZE: boundedInt(0, 100_000, 100).describe(
    "Entities of an `*_Update` handed to the store at a time while the request is parsed, written in the batch's one transaction as the parse goes on (decision 91); `0`: the batch is parsed whole before anything is written.",
  ),
});
