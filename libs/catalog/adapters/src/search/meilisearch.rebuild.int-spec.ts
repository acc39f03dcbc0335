import type { SearchDoc } from '@commerce/catalog-core';
import { describeWithEngines, uniqueName } from '@commerce/shared-testing';
import { loadMeiliSettings, MeiliSearchIndex } from './meilisearch.search-index';
import { searchDoc } from './search-index.contract';

const doc = (id: number, name: string): SearchDoc => searchDoc(id, name, { sku: `SKU-${id}` });

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

// search:apply (tools/search/apply.ts) rebuilds beside the live index and swaps it in: searches never
// fail and never see part of the catalogue, whatever moment they land on.
describeWithEngines('Meilisearch rebuild by index swap', ['meilisearch'], (engines) => {
  const key = () => engines.key('meilisearch');
  const meili = () => engines.url('meilisearch').replace(/\/+$/, '');
  const rest = async (path: string): Promise<{ status: number; body: unknown }> => {
    const k = key();
    const res = await fetch(`${meili()}${path}`, { headers: k ? { authorization: `Bearer ${k}` } : {} });
    return { status: res.status, body: await res.json() };
  };
  const open = (indexName: string) => {
    const apiKey = key();
    return MeiliSearchIndex.open(engines.url('meilisearch'), { indexName, ...(apiKey ? { apiKey } : {}) });
  };
  const opened: MeiliSearchIndex[] = [];
  afterAll(async () => {
    for (const index of opened) await index.deleteIndex();
  });

  it('keeps answering with the whole old catalogue until the swap, then with the whole new one', async () => {
    const live = await open(uniqueName('products'));
    opened.push(live);
    const oldIds = range(1, 300);
    const newIds = range(1, 400);
    await live.upsert(oldIds.map((id) => doc(id, `Old Shirt ${id}`)));

    // Searches in a loop for as long as the rebuild runs, each one recorded with when it started and
    // ended: one query a sample, so that a sample never straddles the swap between two queries.
    type Sample = { query: 'shirt' | 'old' | 'new'; startedAt: number; endedAt: number; total: number; ids: string[] };
    const seen: Array<Sample | { error: string }> = [];
    let rebuilding = true;
    const searcher = (async () => {
      for (let round = 0; rebuilding; round++) {
        const query = (['shirt', 'old', 'new'] as const)[round % 3]!;
        const startedAt = Date.now();
        try {
          const r = await live.search({ text: query, sort: [{ field: 'productId', order: 'asc' }], offset: 0, limit: 20 });
          seen.push({ query, startedAt, endedAt: Date.now(), total: r.total, ids: r.ids });
        } catch (error) {
          seen.push({ error: String(error) });
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();

    let swapAt = 0;
    const filled = await live.rebuild(
      async (staging) => {
        expect(staging.indexName).toMatch(new RegExp(`^${live.indexName}_tmp_\\d+$`));
        // Batches, as the reindex command writes them; slow enough for searches to land in between.
        for (let i = 0; i < newIds.length; i += 50) {
          await staging.upsert(newIds.slice(i, i + 50).map((id) => doc(id, `New Shirt ${id}`)));
        }
        return newIds.length;
      },
      { onStep: (step) => (step === 'swap' ? (swapAt = Date.now()) : undefined) },
    );
    rebuilding = false;
    await searcher;

    expect(filled).toBe(400);
    expect(seen.filter((s) => 'error' in s)).toEqual([]);
    const answers = seen as Sample[];
    // What each query answers with the whole old catalogue, and with the whole new one: nothing else.
    const wholeOld = { shirt: 300, old: 300, new: 0 };
    const wholeNew = { shirt: 400, old: 0, new: 400 };
    const isOld = (s: Sample) => s.total === wholeOld[s.query] && (s.total === 0 || s.ids.length === 20);
    const isNew = (s: Sample) => s.total === wholeNew[s.query] && (s.total === 0 || s.ids.length === 20);
    for (const s of answers) expect(isOld(s) || isNew(s)).toBe(true);
    // Before the swap: always the whole old catalogue, never empty, never partial.
    const during = answers.filter((s) => s.endedAt < swapAt);
    expect(during.length).toBeGreaterThan(3);
    expect(during.every(isOld)).toBe(true);
    // Once a search has seen the new catalogue, no search started after it sees the old one again.
    const firstNew = answers.find((s) => !isOld(s));
    if (firstNew) expect(answers.filter((s) => s.startedAt > firstNew.endedAt).every(isNew)).toBe(true);
    const firstShirt = answers.find((s) => s.query === 'shirt')!;
    expect(firstShirt.ids).toEqual(range(1, 20).map(String));

    // After: the new documents only, and no staging index left behind.
    expect((await live.search({ text: 'shirt', offset: 0, limit: 1 })).total).toBe(400);
    expect((await live.search({ text: 'old', offset: 0, limit: 1 })).total).toBe(0);
    const indexes = (await rest('/indexes?limit=1000')).body as { results: Array<{ uid: string }> };
    expect(indexes.results.map((i) => i.uid).filter((uid) => uid.startsWith(`${live.indexName}_tmp_`))).toEqual([]);
  }, 120_000);

  it('brings the settings in with the swap, not before', async () => {
    const live = await open(uniqueName('products'));
    opened.push(live);
    await live.upsert([doc(1, 'Linen Shirt')]);
    // The live index has the shipped stop words (infra/meilisearch/settings.json); the rebuild brings another list.
    const shipped = (loadMeiliSettings()['stopWords'] as string[] | undefined) ?? [];
    expect(shipped).not.toEqual(['the']);
    const settings = { ...loadMeiliSettings(), stopWords: ['the'] };
    await live.rebuild(
      async (staging) => {
        await staging.upsert([doc(1, 'Linen Shirt')]);
        expect(((await rest(`/indexes/${live.indexName}/settings`)).body as { stopWords: string[] }).stopWords).toEqual(
          [...shipped].sort(),
        );
        expect(((await rest(`/indexes/${staging.indexName}/settings`)).body as { stopWords: string[] }).stopWords).toEqual(['the']);
      },
      { settings },
    );
    expect(((await rest(`/indexes/${live.indexName}/settings`)).body as { stopWords: string[] }).stopWords).toEqual(['the']);
  }, 60_000);

  it('leaves the live index as it was and deletes the staging one when the rebuild fails', async () => {
    const live = await open(uniqueName('products'));
    opened.push(live);
    await live.upsert(range(1, 5).map((id) => doc(id, `Old Shirt ${id}`)));
    let stagingName = '';
    await expect(
      live.rebuild(async (staging) => {
        stagingName = staging.indexName;
        await staging.upsert([doc(9, 'New Shirt 9')]);
        throw new Error('the catalogue could not be read');
      }),
    ).rejects.toThrow('the catalogue could not be read');
    expect((await live.search({ text: 'shirt', offset: 0, limit: 10 })).total).toBe(5);
    expect((await rest(`/indexes/${stagingName}`)).status).toBe(404);
  }, 60_000);

  it('creates the live index by renaming the staging one when there is none yet', async () => {
    const name = uniqueName('products');
    const apiKey = key();
    const live = await MeiliSearchIndex.open(engines.url('meilisearch'), {
      indexName: name,
      configure: false,
      ...(apiKey ? { apiKey } : {}),
    });
    opened.push(live);
    expect((await rest(`/indexes/${name}`)).status).toBe(404);
    await live.rebuild(async (staging) => staging.upsert([doc(1, 'Linen Shirt')]));
    expect(await live.search({ text: 'linen', offset: 0, limit: 10 })).toMatchObject({ ids: ['1'], total: 1 });
  }, 60_000);
});
