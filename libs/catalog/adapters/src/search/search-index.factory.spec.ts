import { createServer } from 'node:net';
import { SearchUnavailableError } from '@commerce/catalog-core';
import { createSearchIndex } from './search-index.factory';
import { filterExpression } from './meilisearch.search-index';

describe('createSearchIndex', () => {
  it('gives the embedded engine for "embedded"', async () => {
    const index = await createSearchIndex('embedded');
    expect(index.kind).toBe('embedded');
    await expect(index.ping()).resolves.toBeUndefined();
  });

  it('when Meilisearch does not answer, throws SearchUnavailableError with one line naming the URL', async () => {
    // A port that was free a moment ago (not a low one: fetch refuses "bad ports" such as 1 outright).
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const error = await createSearchIndex(`http://127.0.0.1:${port}`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SearchUnavailableError);
    expect((error as Error).message).toBe(`search: cannot reach Meilisearch at http://127.0.0.1:${port} (ECONNREFUSED)`);
  });

  it('rejects a URL that is neither embedded nor http(s)', async () => {
    await expect(createSearchIndex('ftp://x')).rejects.toThrow(/unsupported MEILI_URL/);
  });
});

describe('Meilisearch filter expression', () => {
  it('combines fields with AND and values with OR, quoting values', () => {
    expect(filterExpression({ brands: ['1', '2'], categories: ['x"y'], inStock: true })).toBe(
      'brand IN ["1", "2"] AND categories IN ["x\\"y"] AND inStock = true',
    );
    expect(filterExpression({})).toBeUndefined();
  });
});
