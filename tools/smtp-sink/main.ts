import { createServer } from 'node:http';
import { startSmtpCatcher } from '@commerce/shared-testing';

/**
 * The SMTP catcher of the local Kubernetes overlay (image `localhost/commerce-smtp-sink:1`, built by
 * tools/image/engines): the tests' own catcher (startSmtpCatcher) on every address, and the mails it caught over
 * HTTP so a test outside the cluster can read them. SMTP on SMTP_PORT (1025), HTTP on HTTP_PORT (8025):
 *   GET /healthz                  200 while both listen
 *   GET /mails[?to=address]       the caught mails, oldest first: [{to, subject, text}]
 *   DELETE /mails                 forgets them
 * Mails live in memory only: a restart empties the sink.
 */
const port = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1 || value > 65535) throw new Error(`${name} must be a port number, got ${process.env[name]}`);
  return value;
};

async function main(): Promise<void> {
  const smtp = await startSmtpCatcher({ host: '0.0.0.0', port: port('SMTP_PORT', 1025) });
  const http = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://sink');
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/healthz' && req.method === 'GET') return answer(200, { status: 'ok' });
    if (url.pathname === '/mails' && req.method === 'GET') {
      const to = url.searchParams.get('to')?.toLowerCase();
      return answer(200, to ? smtp.mails.filter((m) => m.to.some((t) => t.toLowerCase() === to)) : smtp.mails);
    }
    if (url.pathname === '/mails' && req.method === 'DELETE') {
      smtp.mails.splice(0);
      return answer(200, { deleted: true });
    }
    return answer(404, { error: 'not found' });
  });
  http.listen(port('HTTP_PORT', 8025), '0.0.0.0');
  process.stdout.write(`smtp sink: SMTP on ${smtp.port}, HTTP on ${port('HTTP_PORT', 8025)}\n`);
  const stop = () => {
    http.close();
    void smtp.close().then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

void main().catch((error: unknown) => {
  process.stderr.write(`smtp sink: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
