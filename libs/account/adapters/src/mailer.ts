import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import nodemailer from 'nodemailer';
import type { Mail, Mailer } from '@commerce/account-core';
import type { Logger } from '@commerce/shared-logging';

export interface MailerOptions {
  /** `outbox` (files, the embedded adapter) or an SMTP URL: `smtp://user:pass@host:587`, `smtps://host:465`. */
  url: string;
  /** Where the outbox adapter writes (`./data/outbox` by default). */
  outboxDir?: string;
  from: string;
  logger?: Logger;
}

export type ClosableMailer = Mailer & { kind: 'smtp' | 'outbox'; close(): void };

/** The URL without its password, fit for a log line. */
const redact = (url: string) => url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');

/**
 * The e-mail port (DESIGN §3): SMTP through nodemailer in production, and embedded a file per mail in
 * the outbox directory (a complete RFC 5322 message, `.eml`, built by nodemailer too) plus a log line.
 */
export function createMailer(options: MailerOptions): ClosableMailer {
  if (options.url === 'outbox') {
    const dir = resolve(options.outboxDir ?? './data/outbox');
    const build = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
    return {
      kind: 'outbox',
      async send(mail: Mail) {
        const info = await build.sendMail({ from: options.from, to: mail.to, subject: mail.subject, text: mail.text });
        await mkdir(dir, { recursive: true });
        const file = join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID()}.eml`);
        await writeFile(file, info.message as Buffer);
        options.logger?.info({ to: mail.to, subject: mail.subject, file }, 'mail written to the outbox');
      },
      close: () => build.close(),
    };
  }
  const transport = nodemailer.createTransport(options.url);
  return {
    kind: 'smtp',
    async send(mail: Mail) {
      const info = await transport.sendMail({ from: options.from, to: mail.to, subject: mail.subject, text: mail.text });
      options.logger?.info({ to: mail.to, subject: mail.subject, messageId: info.messageId, smtp: redact(options.url) }, 'mail sent');
    },
    close: () => transport.close(),
  };
}
