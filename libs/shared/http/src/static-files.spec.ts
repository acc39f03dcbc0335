import http from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Router } from '@koa/router';
import { createLogger } from '@commerce/shared-logging';
import { createHttpApp } from './http-app';
import { mountRouters } from './mount-routers';
import { serve, type RunningServer } from './serve';
import { staticFiles } from './static-files';

/** A raw request, so that `..` reaches the server as sent (fetch would normalise it away). */
function raw(url: string, path: string, method = 'GET'): Promise<{ status: number; type: string; body: string; cache: string }> {
  return new Promise((ok, fail) => {
    const req = http.request(`${url}${path}`, { method, path }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () =>
        ok({
          status: res.statusCode ?? 0,
          type: String(res.headers['content-type'] ?? ''),
          body,
          cache: String(res.headers['cache-control'] ?? ''),
        }),
      );
    });
    req.on('error', fail);
    req.end();
  });
}

describe('staticFiles', () => {
  let dir: string;
  let running: RunningServer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'static-files-'));
    mkdirSync(join(dir, 'shop', 'media'), { recursive: true });
    writeFileSync(join(dir, 'shop', 'index.html'), '<!doctype html><title>shop</title>');
    writeFileSync(join(dir, 'shop', 'app.js'), 'console.log(1)');
    writeFileSync(join(dir, 'shop', 'media', 'a.svg'), '<svg/>');
    writeFileSync(join(dir, 'shop', 'notes.xyz'), 'unknown type');
    writeFileSync(join(dir, 'secret.txt'), 'outside');
    const app = createHttpApp({ service: 'test', logger: createLogger('static-test', 'silent') });
    const router = new Router({ prefix: '/api' });
    router.get('/thing', (ctx) => {
      ctx.body = { thing: true };
    });
    mountRouters(app, [router]);
    app.use(staticFiles(join(dir, 'shop')));
    running = await serve(app, { port: 0, host: '127.0.0.1', logger: createLogger('static-test', 'silent') });
  });

  afterAll(async () => {
    await running.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers / with index.html, revalidated on every load', async () => {
    const res = await raw(running.url, '/');
    expect(res).toMatchObject({
      status: 200,
      type: 'text/html; charset=utf-8',
      body: '<!doctype html><title>shop</title>',
      cache: 'no-cache',
    });
  });

  it('answers the files under its folder with their types', async () => {
    expect(await raw(running.url, '/app.js')).toMatchObject({
      status: 200,
      type: 'text/javascript; charset=utf-8',
      body: 'console.log(1)',
    });
    expect(await raw(running.url, '/media/a.svg')).toMatchObject({ status: 200, type: 'image/svg+xml', body: '<svg/>' });
  });

  it('answers HEAD without a body', async () => {
    expect(await raw(running.url, '/app.js', 'HEAD')).toMatchObject({ status: 200, body: '' });
  });

  it('leaves the routers their answers and their 404s', async () => {
    expect(JSON.parse((await raw(running.url, '/api/thing')).body)).toEqual({ thing: true });
    const missing = await raw(running.url, '/api/nothing');
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body)).toEqual({ errors: { path: 'not found' } });
  });

  it('serves nothing outside its folder, of an unknown type, or a missing file', async () => {
    for (const path of ['/../secret.txt', '/%2e%2e/secret.txt', '/media/../../secret.txt', '/notes.xyz', '/nope.js', '/media']) {
      const res = await raw(running.url, path);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
    }
  });

  it('answers only GET and HEAD', async () => {
    expect((await raw(running.url, '/app.js', 'POST')).status).toBe(404);
  });
});
