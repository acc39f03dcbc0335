import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** A mail as a test reads it: envelope recipients, subject and the decoded plain-text body. */
export interface CaughtMail {
  to: string[];
  subject: string;
  text: string;
}

/** Headers and body of an RFC 5322 message; a quoted-printable or base64 body decoded (nodemailer writes both). */
export function parseMessage(raw: string): { subject: string; to: string[]; text: string } {
  const normalized = raw.replace(/\r\n/g, '\n');
  const split = normalized.indexOf('\n\n');
  const head = normalized.slice(0, split).replace(/\n[ \t]+/g, ' ');
  let body = normalized.slice(split + 2);
  const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(head)?.[1]?.trim() ?? '';
  const encoding = header('Content-Transfer-Encoding').toLowerCase();
  if (encoding === 'quoted-printable') {
    body = Buffer.from(
      body.replace(/=\n/g, '').replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))),
      'latin1',
    ).toString('utf8');
  } else if (encoding === 'base64') {
    body = Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  }
  const to = header('To')
    .split(',')
    .map((a) => (/<([^>]+)>/.exec(a)?.[1] ?? a).trim())
    .filter(Boolean);
  return { subject: header('Subject'), to, text: body };
}

const waitFor = async <T>(find: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs: number): Promise<T> => {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const found = await find();
    if (found !== undefined) return found;
    if (Date.now() > until) throw new Error(`no mail ${what} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
};

/**
 * A real SMTP server that keeps every mail it receives: on loopback unless `host` says otherwise (the SMTP sink
 * image listens on every address), on a free port or on `port` (a server closed and started again on its port is
 * an SMTP server that was down and is up again).
 */
export async function startSmtpCatcher(options: { port?: number; host?: string } = {}): Promise<{
  url: string;
  port: number;
  mails: CaughtMail[];
  /** The first mail to `address` (case-insensitive) received from now on or before; waits up to `timeoutMs`. */
  mailTo(address: string, timeoutMs?: number): Promise<CaughtMail>;
  close(): Promise<void>;
}> {
  const mails: CaughtMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const parsed = parseMessage(Buffer.concat(chunks).toString('latin1'));
        mails.push({ ...parsed, to: session.envelope.rcptTo.map((r) => r.address) });
        callback();
      });
    },
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://${host}:${port}`,
    port,
    mails,
    mailTo: (address, timeoutMs = 10_000) =>
      waitFor(() => mails.find((m) => m.to.some((t) => t.toLowerCase() === address.toLowerCase())), `to ${address}`, timeoutMs),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The mails an outbox directory holds (the embedded mailer's `.eml` files). */
export async function readOutbox(dir: string): Promise<CaughtMail[]> {
  const files = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.eml')).sort();
  return Promise.all(files.map(async (f) => parseMessage(await readFile(join(dir, f), 'latin1'))));
}

/** The first mail to `address` in an outbox directory; waits up to `timeoutMs` for it to be written. */
export function outboxMailTo(dir: string, address: string, timeoutMs = 10_000): Promise<CaughtMail> {
  return waitFor(
    async () => (await readOutbox(dir)).find((m) => m.to.some((t) => t.toLowerCase() === address.toLowerCase())),
    `to ${address} in ${dir}`,
    timeoutMs,
  );
}
