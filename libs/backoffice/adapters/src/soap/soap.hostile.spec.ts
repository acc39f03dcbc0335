import { once } from 'node:events';
import { createWriteStream, createReadStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { request as httpRequest, createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync, gzipSync } from 'node:zlib';
import Koa from 'koa';
import pino from 'pino';
import { DEFAULT_SOAP_NAMESPACE, DEFAULT_SOAP_PATH } from '@commerce/backoffice-contracts';
import type { PasswordHasher } from '@commerce/backoffice-core';
import { soapHeaders, soapRequest } from '../testing/soap-request';
import { createSoapRouter } from './soap.router';

/*
 * The hostile corpus: every request is answered with 413 or a SOAP Fault within a second, the process
 * stays up with its heap growing by under 300 MB, and no operation runs for a request it should not.
 *
 * "Within a second" is measured as the CPU time this process (the server, and the client sending the
 * body) spent from sending the request to reading the whole answer: on a quiet machine that is the wall
 * time, and unlike the wall time it does not grow when other work on a loaded machine takes the cores
 * (the suite failed at a load average above 10). A refusal that waited instead of working (a timer, a
 * read to the end of a 100 MB body) would not show in CPU time, so the wall time is also bounded, far
 * above a second, as a hang detector only.
 */
// Jest's 5 s per test is a wall-clock limit a loaded machine can pass; the time limits are asserted below.
jest.setTimeout(60_000);

const hasher: PasswordHasher = { hash: async (p) => `plain$${p}`, verify: async (p, e) => e === `plain$${p}` };
const USER = { username: 'erp', password: 'pw' };
const received = jest.fn(async (_entity: string, _entities: unknown[], _requestId: string) => undefined);
/** A batch handed over while it is parsed (decision 91): `received` once every part came, as a commit would. */
const receivedParts = jest.fn(async (entity: string, parts: AsyncIterable<readonly unknown[]>, requestId: string) => {
  const all: unknown[] = [];
  for await (const part of parts) all.push(...part);
  return received(entity, all, requestId);
});
const getEvents = jest.fn(async () => []);
const markDone = jest.fn(async () => undefined);

let server: Server;
let url: URL;
let dir: string;
let bait: Server;
let baitHits = 0;
let baitUrl: string;
/** The jest worker's heap before this file: suites that ran earlier in the same worker leave theirs behind. */
let heapBefore = 0;

beforeAll(async () => {
  heapBefore = process.memoryUsage().heapUsed;
  const router = createSoapRouter({
    receiveEntities: received,
    receiveEntityParts: receivedParts,
    streamPartSize: 1,
    getEvents,
    markEventsDone: markDone,
    users: [{ username: USER.username, passwordHash: `plain$${USER.password}` }],
    namespace: DEFAULT_SOAP_NAMESPACE,
    logger: pino({ level: 'silent' }),
    hasher,
  });
  const app = new Koa();
  app.use(router.routes());
  server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}${DEFAULT_SOAP_PATH}`);
  // An XXE over http would fetch this.
  bait = createServer((_req, res) => {
    baitHits++;
    res.end('secret');
  });
  bait.listen(0, '127.0.0.1');
  await once(bait, 'listening');
  baitUrl = `http://127.0.0.1:${(bait.address() as AddressInfo).port}/secret`;
  dir = mkdtempSync(join(tmpdir(), 'soap-hostile-'));
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
  await new Promise((r) => bait.close(r));
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  received.mockClear();
  receivedParts.mockClear();
  getEvents.mockClear();
  markDone.mockClear();
});

interface Answer {
  status: number;
  contentType: string | undefined;
  body: string;
  /** Wall-clock milliseconds from sending to the end of the answer. */
  ms: number;
  /** CPU milliseconds (user + system) this process spent in that time. */
  cpuMs: number;
}

/** POSTs a body (bytes, or chunks produced only as the socket takes them) and waits for the whole answer. */
function post(headers: Record<string, string | number>, body: Buffer | (() => AsyncIterable<Buffer>) | string): Promise<Answer> {
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = httpRequest(url, { method: 'POST', headers }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        resolve({
          status: res.statusCode ?? 0,
          contentType: res.headers['content-type'],
          body: Buffer.concat(chunks).toString('utf8'),
          ms: performance.now() - started,
          cpuMs: ((cpu) => (cpu.user + cpu.system) / 1000)(process.cpuUsage(cpuBefore)),
        });
        req.destroy();
      });
    });
    // The server may close while the body is still going out: that is the point.
    req.on('error', (e) => {
      if (!answered) reject(e);
    });
    if (typeof body === 'string' || Buffer.isBuffer(body)) {
      req.end(body);
      return;
    }
    const gone = new AbortController();
    req.once('close', () => gone.abort());
    void (async () => {
      try {
        for await (const chunk of body()) {
          if (answered || req.destroyed) return;
          if (!req.write(chunk)) await once(req, 'drain', { signal: gone.signal });
        }
        if (!answered) req.end();
      } catch {
        // the socket went away under the writer
      }
    })();
  });
}

const headers = (op = 'products_Update', extra: Record<string, string | number> = {}) => ({ ...soapHeaders(op), ...extra });
const envelopeAround = (inner: string, op = 'products_Update') => soapRequest(op, inner, USER);
const [HEAD, TAIL] = envelopeAround('\u0000').split('\u0000') as [string, string];

function expectRefused(answer: Answer, statuses: number[] = [413, 500]) {
  expect(statuses).toContain(answer.status);
  expect(answer.cpuMs).toBeLessThan(1000);
  expect(answer.ms).toBeLessThan(30_000);
  expect(answer.contentType).toBe('text/xml; charset=utf-8');
  expect(answer.body).toMatch(/<SOAP-ENV:Fault><faultcode>SOAP-ENV:(Client|Server)<\/faultcode><faultstring>[^<]+<\/faultstring>/);
  expect(answer.body).not.toMatch(/\bat [\w.<>]+ \(|node:internal|\.ts:\d+/);
  expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(300 * 1024 * 1024);
  expect(received).not.toHaveBeenCalled();
}

afterEach(async () => {
  // Alive, and still serving: an ordinary request goes through after every hostile one.
  const ok = await post(headers('markets_Update'), envelopeAround('<markets><market><id>EU</id></market></markets>', 'markets_Update'));
  expect(ok.status).toBe(200);
  expect(received).toHaveBeenCalledTimes(1);
});

describe('the SOAP front door under hostile XML', () => {
  it('XXE with a file entity: refused, nothing read', async () => {
    const xml = `<?xml version="1.0"?><!DOCTYPE d [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>${envelopeAround('<products><product><id>&xxe;</id></product></products>')}`;
    const answer = await post(headers(), xml);
    expectRefused(answer);
    expect(answer.body).toContain('must not contain a DTD');
    expect(answer.body).not.toContain('root:');
  });

  it('XXE with an http entity: refused, and the URL is never fetched', async () => {
    const xml = `<!DOCTYPE d [<!ENTITY xxe SYSTEM "${baitUrl}">]>${envelopeAround('<products><product><id>&xxe;</id></product></products>')}`;
    expectRefused(await post(headers(), xml));
    await new Promise((r) => setTimeout(r, 50));
    expect(baitHits).toBe(0);
  });

  it('billion laughs: refused before any entity is defined', async () => {
    const lol = ['<!ENTITY lol "lol">', ...Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i || ''};`.repeat(10)}">`)];
    const xml = `<?xml version="1.0"?><!DOCTYPE lolz [${lol.join('')}]>${envelopeAround('<products><product><id>&lol9;</id></product></products>')}`;
    const answer = await post(headers(), xml);
    expectRefused(answer);
    expect(answer.body).toContain('must not contain a DTD');
  });

  it('a 1 GB gzip bomb: refused with 413 while inflating, after about 10 MB', async () => {
    // 1 GiB of text in concatenated gzip members (a valid gzip stream), written to disk as it is made.
    const file = join(dir, 'bomb.gz');
    const out = createWriteStream(file);
    const megabyte = gzipSync(Buffer.alloc(1024 * 1024, 'A'));
    out.write(gzipSync(Buffer.from(`${HEAD}<products><product><id>`)));
    for (let i = 0; i < 1024; i++) if (!out.write(megabyte)) await once(out, 'drain');
    out.end(gzipSync(Buffer.from(`</id></product></products>${TAIL}`)));
    await once(out, 'finish');
    expect(statSync(file).size).toBeLessThan(2 * 1024 * 1024);

    const answer = await post(headers('products_Update', { 'Content-Encoding': 'gzip' }), () => createReadStream(file));
    expectRefused(answer, [413]);
    expect(answer.body).toContain('decompressed request body larger than 10485760 bytes');
  });

  it('a deflate bomb and a corrupt gzip body: 413 and a Client fault', async () => {
    const bomb = deflateSync(Buffer.concat([Buffer.from(`${HEAD}<products><product><id>`), Buffer.alloc(64 * 1024 * 1024, 'B')]));
    expectRefused(await post(headers('products_Update', { 'Content-Encoding': 'deflate' }), bomb), [413]);
    const corrupt = await post(headers('products_Update', { 'Content-Encoding': 'gzip' }), Buffer.from('not gzip at all'));
    expectRefused(corrupt);
    expect(corrupt.body).toContain('not valid gzip or deflate data');
  });

  it('an unknown Content-Encoding: 415 with a Fault', async () => {
    const answer = await post(headers('products_Update', { 'Content-Encoding': 'br' }), envelopeAround('<products/>'));
    expectRefused(answer, [415]);
    expect(answer.body).toContain('Content-Encoding br is not supported');
  });

  it('a 100 MB text node, streamed without a length: 413 after 10 MB, the rest never read', async () => {
    const megabyte = Buffer.alloc(1024 * 1024, 'C');
    let sent = 0;
    async function* body() {
      yield Buffer.from(`${HEAD}<products><product><id>`);
      for (let i = 0; i < 100; i++) {
        sent++;
        yield megabyte;
      }
      yield Buffer.from(`</id></product></products>${TAIL}`);
    }
    const answer = await post(headers(), body);
    expectRefused(answer, [413]);
    expect(sent).toBeLessThan(100);
  });

  it('a 100 MB body announced by Content-Length: 413 before a byte of it is read', async () => {
    async function* body() {
      yield Buffer.from(HEAD);
      await new Promise((r) => setTimeout(r, 5000).unref());
    }
    expectRefused(await post(headers('products_Update', { 'Content-Length': 100 * 1024 * 1024 }), body), [413]);
  });

  it('200,000 levels of nesting: refused at level 65', async () => {
    const xml = `${HEAD}<products>${'<a>'.repeat(200_000)}${'</a>'.repeat(200_000)}</products>${TAIL}`;
    const answer = await post(headers(), xml);
    expectRefused(answer);
    expect(answer.body).toContain('nests elements deeper than 64 levels');
  });

  it('2 million elements: refused at 600,000', async () => {
    async function* body() {
      yield Buffer.from(`${HEAD}<products><product><id>1</id>`);
      const batch = Buffer.from('<x/>'.repeat(100_000));
      for (let i = 0; i < 20; i++) yield batch;
      yield Buffer.from(`</product></products>${TAIL}`);
    }
    const answer = await post(headers(), body);
    expectRefused(answer);
    expect(answer.body).toContain('more than 600000 elements');
  });

  it.each(['__proto__', 'constructor', 'prototype'])('an element named %s: refused, Object.prototype untouched', async (name) => {
    const xml = envelopeAround(`<products><product><id>1</id><${name}><polluted>yes</polluted></${name}></product></products>`);
    const answer = await post(headers(), xml);
    expectRefused(answer);
    expect(answer.body).toContain(`the name ${name} is not allowed`);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('a SOAPAction naming another operation: a Client fault, and no operation runs', async () => {
    const answer = await post(headers('events_Done'), envelopeAround('<products><product><id>1</id></product></products>'));
    expectRefused(answer);
    expect(answer.body).toContain('does not name the operation in the Body');
    expect(markDone).not.toHaveBeenCalled();
    // Not even handed over while parsing.
    expect(receivedParts).not.toHaveBeenCalled();
    const events = await post(headers('products_Update'), envelopeAround('<event>1</event>', 'events_Done'));
    expectRefused(events);
    expect(markDone).not.toHaveBeenCalled();
  });

  it('an attribute flood and an endless name: refused', async () => {
    const attrs = Array.from({ length: 40 }, (_, i) => `a${i}="1"`).join(' ');
    expectRefused(await post(headers(), envelopeAround(`<products ${attrs}/>`)));
    expectRefused(await post(headers(), envelopeAround(`<${'n'.repeat(10_000)}/>`)));
  });
});
