import { createLogger } from '@commerce/shared-logging';
import { describeWithEngines, uniqueName } from '@commerce/shared-testing';
import { applySearchSettings, settingsDiff } from './apply-settings';
import { openJudgedCatalog, type JudgedCatalog } from './judged-catalog';
import { loadMeiliSettings, MeiliSearchIndex } from './meilisearch.search-index';
import { loadJudgements } from './relevance';

// `npm run search:apply` on Meilisearch: the demo catalog, a live index with the settings file less its
// synonyms, and the file applied beside it while a shopper keeps searching.
describeWithEngines('search:apply on Meilisearch', ['meilisearch'], (engines) => {
  const judgements = loadJudgements();
  const file = loadMeiliSettings();
  const withoutSynonyms = { ...file, synonyms: {} };
  let catalog: JudgedCatalog;
  const opened: MeiliSearchIndex[] = [];

  const open = async (settings: Record<string, unknown>) => {
    const apiKey = engines.key('meilisearch');
    const index = await MeiliSearchIndex.open(engines.url('meilisearch'), {
      indexName: uniqueName('products'),
      settings,
      ...(apiKey ? { apiKey } : {}),
    });
    opened.push(index);
    await catalog.fill(index);
    return index;
  };
  const apply = (live: MeiliSearchIndex, settings: Record<string, unknown>, mode: 'report-only' | 'swap' | 'swap-if-better') =>
    applySearchSettings({
      live,
      settings,
      mode,
      judgements,
      productOf: catalog.productOf,
      fill: (staging, onProgress) =>
        catalog
          .fill(staging)
          .then(() => ({ done: 1, total: 1 }))
          .finally(() => onProgress({ done: 1, total: 1 })),
    });
  const exists = async (name: string) => {
    const key = engines.key('meilisearch');
    const res = await fetch(`${engines.url('meilisearch').replace(/\/+$/, '')}/indexes/${name}`, {
      headers: key ? { authorization: `Bearer ${key}` } : {},
    });
    return res.status === 200;
  };

  beforeAll(async () => {
    catalog = await openJudgedCatalog(judgements, createLogger('apply-test', 'silent'));
  }, 120_000);
  afterAll(async () => {
    for (const index of opened) await index.deleteIndex().catch(() => undefined);
    await catalog?.close();
  });

  it('swaps a better settings file in while searches keep being answered, none failing', async () => {
    const live = await open(withoutSynonyms);
    const samples: Array<{ text: string; total: number; endedAt: number } | { error: string }> = [];
    let applying = true;
    const shopper = (async () => {
      for (let i = 0; applying; i++) {
        const text = ['trainers', 'linen shirt', 'jumper'][i % 3]!;
        try {
          const r = await live.search({ text, offset: 0, limit: 10 });
          samples.push({ text, total: r.total, endedAt: Date.now() });
        } catch (error) {
          samples.push({ error: String(error) });
        }
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    let swapAt = 0;
    const result = await applySearchSettings({
      live,
      settings: file,
      mode: 'swap-if-better',
      judgements,
      productOf: catalog.productOf,
      fill: async (staging, onProgress) => {
        await catalog.fill(staging);
        onProgress({ done: 60, total: 60 });
        return { done: 60, total: 60 };
      },
      onStep: (step) => {
        if (step === 'swap') swapAt = Date.now();
      },
    });
    applying = false;
    await shopper;

    expect(samples.filter((s) => 'error' in s)).toEqual([]);
    const answered = samples as Array<{ text: string; total: number; endedAt: number }>;
    expect(answered.filter((s) => s.endedAt < swapAt).length).toBeGreaterThan(10);
    expect(result.swapped).toBe(true);
    expect(result.changes.map((c) => c.setting)).toEqual(['synonyms']);
    expect(result.comparison.regressions).toEqual([]);
    expect(result.next.classes['synonym']!.ndcg).toBeGreaterThan(result.live.classes['synonym']!.ndcg);
    // Before the swap trainers found nothing; every search since finds the sneakers.
    expect(answered.filter((s) => s.text === 'trainers' && s.endedAt < swapAt).every((s) => s.total === 0)).toBe(true);
    expect((await live.search({ text: 'trainers', offset: 0, limit: 10 })).total).toBeGreaterThan(0);
    expect(settingsDiff((await live.settings())!, file)).toEqual([]);
    expect(await exists(result.stagingIndex)).toBe(false);
  }, 180_000);

  it('with --report-only, reports and deletes the new index, the live one left as it was', async () => {
    const live = await open(withoutSynonyms);
    const result = await apply(live, file, 'report-only');
    expect(result.swapped).toBe(false);
    expect(result.changes.map((c) => c.setting)).toEqual(['synonyms']);
    expect(result.comparison.better.length).toBeGreaterThan(0);
    expect((await live.settings())!['synonyms']).toEqual({});
    expect(await exists(result.stagingIndex)).toBe(false);
  }, 180_000);

  it('with --swap-if-better, does not swap a settings file that makes the judged queries worse', async () => {
    const live = await open(file);
    const result = await apply(live, withoutSynonyms, 'swap-if-better');
    expect(result.swapped).toBe(false);
    expect(result.comparison.regressions.map((r) => `${r.scope} ${r.metric}`)).toContain('synonym ndcg');
    expect((await live.search({ text: 'trainers', offset: 0, limit: 10 })).total).toBeGreaterThan(0);
    expect(await exists(result.stagingIndex)).toBe(false);
  }, 180_000);
});
