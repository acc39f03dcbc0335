import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { unavailableCause } from '@commerce/shared-errors';
import { MeiliReads } from './meilisearch-reads';

// The searches' own transport (issue 28) against a stand-in for Meilisearch: what it sends, and that a
// Meilisearch that stalls, is gone or refuses fails as the `meilisearch` client's errors did (503 search).
describe('MeiliReads', () => {
  let server: Server;
  let url: string;
  let answer: (req: IncomingMessage, body: string, res: ServerResponse) => void;
  const reads: MeiliReads[] = [];
  const open = (apiKey?: string) => {
    const r = new MeiliReads(url, apiKey);
    reads.push(r);
    return r;
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => answer(req, body, res));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterEach(async () => {
    await Promise.all(reads.splice(0).map((r) => r.close()));
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('posts the parameters to the index search route with the key, and answers the parsed body', async () => {
    const seen: Array<{ method?: string; url?: string; auth?: string; type?: string; body: unknown }> = [];
    answer = (req, body, res) => {
      seen.push({
        method: req.method,
        url: req.url,
        auth: req.headers.authorization,
        type: req.headers['content-type'],
        body: JSON.parse(body),
      });
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end('{"hits":[{"id":"7"}],"totalHits":1,"facetDistribution":{"brand":{"2":1}}}');
    };
    const found = await open('secret').search('products 1', { q: 'shirt', facets: ['brand'], page: 1, hitsPerPage: 24 }, 1000);
    expect(found).toEqual({ hits: [{ id: '7' }], totalHits: 1, facetDistribution: { brand: { '2': 1 } } });
    expect(seen).toEqual([
      {
        method: 'POST',
        url: '/indexes/products%201/search',
        auth: 'Bearer secret',
        type: 'application/json',
        body: { q: 'shirt', facets: ['brand'], page: 1, hitsPerPage: 24 },
      },
    ]);
  });

  it('sends no authorization without a key', async () => {
    let auth: string | undefined = 'unset';
    answer = (req, _body, res) => {
      auth = req.headers.authorization;
      res.writeHead(200).end('{"hits":[]}');
    };
    await open().search('products', { q: '' }, 1000);
    expect(auth).toBeUndefined();
  });

  it('fails a search that gets no answer in its time as a Meilisearch time-out (503 search)', async () => {
    answer = () => undefined; // never answers
    const started = Date.now();
    const error = await open()
      .search('products', { q: '' }, 100)
      .catch((e: unknown) => e);
    // Not undici's own time-outs, which tick in whole seconds (this waited 1 s with them).
    expect(Date.now() - started).toBeLessThan(800);
    expect(error).toMatchObject({ name: 'MeilisearchRequestTimeOutError' });
    expect(unavailableCause(error)).toMatchObject({ dependency: 'search' });
  });

  it('fails a search on an unreachable Meilisearch as a request error (503)', async () => {
    const gone = createServer();
    await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve));
    const port = (gone.address() as AddressInfo).port;
    await new Promise((resolve) => gone.close(resolve));
    const r = new MeiliReads(`http://127.0.0.1:${port}`, undefined);
    reads.push(r);
    const error = await r.search('products', { q: '' }, 1000).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'MeilisearchRequestError' });
    expect(unavailableCause(error)).toMatchObject({ dependency: 'search' });
  });

  it("fails on Meilisearch's error answer with its message and code, not as unavailable", async () => {
    answer = (_req, _body, res) =>
      res
        .writeHead(400, { 'content-type': 'application/json' })
        .end('{"message":"Attribute `x` is not filterable.","code":"invalid_search_filter"}');
    const error = await open()
      .search('products', { q: '', filter: 'x = 1' }, 1000)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: 'MeilisearchApiError',
      message: 'Attribute `x` is not filterable.',
      cause: { code: 'invalid_search_filter' },
    });
    expect(unavailableCause(error)).toBeUndefined();
  });
});
