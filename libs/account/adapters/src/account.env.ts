import { z } from 'zod';
import { boundedInt } from '@commerce/shared-config';
import { argon2Env } from '@commerce/account-contracts';

/**
 * The account service's own variables, for the account and all-in-one config schemas. The argon2id cost
 * defaults to the production floor (19 MiB, t = 2); tests set lower values, a deployment never should.
 */
export const accountEnv = () => ({
  ...argon2Env(),
  /** `outbox` (a file per mail in MAIL_OUTBOX_DIR and a log line) or an SMTP URL, `smtp://user:pass@host:587` / `smtps://host:465`. */
  SMTP_URL: z
    .string()
    .regex(/^(outbox|smtps?:\/\/.+)$/, 'must be outbox or an smtp:// or smtps:// URL')
    .default('outbox')
    .describe(
      "Where the shop's mails go: `smtp://user:pass@host:587` or `smtps://host:465` (nodemailer), or `outbox`: a `.eml` file per mail in `MAIL_OUTBOX_DIR` and a log line (decision 43).",
    ),
  MAIL_OUTBOX_DIR: z.string().min(1).default('./data/outbox').describe('The folder of the mails written when SMTP_URL is `outbox`.'),
  /** The sender of the shop's mails (password reset, back in stock). */
  MAIL_FROM: z
    .string()
    .min(3)
    .default('Shop <no-reply@localhost>')
    .describe("The sender of the shop's mails (password reset, back in stock)."),
  /** How long a password-reset link works. */
  PASSWORD_RESET_TTL_MINUTES: boundedInt(5, 24 * 60, 60).describe('How long a password-reset link works; links are single use.'),
});

export const mailerOptions = (config: { SMTP_URL: string; MAIL_OUTBOX_DIR: string; MAIL_FROM: string }) => ({
  url: config.SMTP_URL,
  outboxDir: config.MAIL_OUTBOX_DIR,
  from: config.MAIL_FROM,
});

// One definition, in the contracts: backoffice-soap hashes buyers' passwords with the same cost (decision 54).
export { argon2Params } from '@commerce/account-contracts';
