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
    const error = await createSearchIndex('http://127.0.0.1:1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SearchUnavailableError);
    expect((error as Error).message).toMatch(/^search: cannot reach Meilisearch at http:\/\/127\.0\.0\.1:1 \(ECONNREFUSED\)$/);
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
