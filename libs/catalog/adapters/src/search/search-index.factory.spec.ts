import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '@commerce/shared-logging';
import { SearchUnavailableError } from '@commerce/catalog-core';
import { createSearchIndex } from './search-index.factory';
import { filterExpression, loadMeiliSettings } from './meilisearch.search-index';

describe('createSearchIndex', () => {
  it('gives the embedded engine for "embedded"', async () => {
    const index = await createSearchIndex('embedded');
    expect(index.kind).toBe('embedded');
    await expect(index.ping()).resolves.toBeUndefined();
  });

  it('says in one warning line at start-up what of the settings file the embedded engine does not follow', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'search-settings-'));
    const file = join(dir, 'settings.json');
    writeFileSync(file, JSON.stringify({ ...loadMeiliSettings(), distinctAttribute: 'platformProduct' }));
    const warnings: string[] = [];
    const logger = { info: () => undefined, warn: (line: string) => warnings.push(line) } as unknown as Logger;
    await createSearchIndex('embedded', { logger, settingsFile: file });
    expect(warnings).toEqual([
      `search: the embedded engine does not follow distinctAttribute "platformProduct" from ${file}: results differ from Meilisearch's there`,
    ]);
    warnings.length = 0;
    await createSearchIndex('embedded', { logger });
    expect(warnings).toEqual([]);
    rmSync(dir, { recursive: true, force: true });
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
      'brand IN ["1", "2"] AND categoryTree IN ["x\\"y"] AND inStock = true',
    );
    expect(filterExpression({})).toBeUndefined();
  });

  it('puts the scope first, ORs the two halves of a uri filter, and writes numbers bare', () => {
    expect(
      filterExpression(
        { platformProducts: [7], uri: { ids: ['3'], categories: ['9'] }, extra: { countryOrigin: ['PT'] } },
        { market: '2', pricelist: '1' },
      ),
    ).toBe(
      'markets IN ["*", "2"] AND pricelists = "1" AND platformProduct IN [7] AND (id IN ["3"] OR categoryTree IN ["9"]) AND countryOrigin IN ["PT"]',
    );
  });

  it('says null when an empty list leaves nothing to match', () => {
    expect(filterExpression({ brands: [] })).toBeNull();
    expect(filterExpression({ uri: { ids: [], categories: [] } })).toBeNull();
  });
});
