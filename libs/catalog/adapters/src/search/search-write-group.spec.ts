import type { SearchDoc, SearchIndex } from '@commerce/catalog-core';
import { searchWriteGroup } from './search-write-group';

/** A search engine that records its writes, each taking `writeMs`, refusing documents whose id is in `bad`. */
function recordingIndex(writeMs = 5, bad = new Set<string>()) {
  const writes: Array<{ kind: 'upsert' | 'remove'; ids: string[] }> = [];
  const index: SearchIndex = {
    kind: 'meilisearch',
    upsert: async (docs: SearchDoc[]) => {
      await sleep(writeMs);
      if (docs.some((d) => bad.has(d.id))) throw new Error('document refused');
      writes.push({ kind: 'upsert', ids: docs.map((d) => d.id) });
    },
    remove: async (ids: string[]) => {
      await sleep(writeMs);
      writes.push({ kind: 'remove', ids });
    },
    search: () => Promise.resolve({ ids: [], total: 0 }),
    facetTotals: () => Promise.resolve({}),
    clear: () => Promise.resolve(),
    ping: () => Promise.resolve(),
  };
  return { index, writes };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const doc = (id: string) => ({ id }) as SearchDoc;

describe('searchWriteGroup (decision 87)', () => {
  it("writes the concurrent handlers' documents as one upsert once the slowest has built its own", async () => {
    const { index, writes } = recordingIndex();
    const group = searchWriteGroup(index);
    const handler = (build: number, ids: string[]) =>
      group.run(async () => {
        await sleep(build);
        await group.search.upsert(ids.map(doc));
        return writes.length; // resolved once written
      });
    const seen = await Promise.all([handler(1, ['a', 'b']), handler(30, ['c']), handler(10, ['d'])]);
    expect(writes).toEqual([{ kind: 'upsert', ids: ['a', 'b', 'd', 'c'] }]);
    expect(seen).toEqual([1, 1, 1]);
  });

  it('writes removals after the upserts of the same group, and a later write as the next group', async () => {
    const { index, writes } = recordingIndex(20);
    const group = searchWriteGroup(index);
    const first = Promise.all([
      group.run(async () => {
        await sleep(1);
        await group.search.remove(['x']);
      }),
      group.run(async () => {
        await sleep(2);
        await group.search.upsert([doc('a')]);
      }),
    ]);
    await sleep(10); // the first group is being written
    const later = group.run(() => group.search.upsert([doc('b')]));
    await Promise.all([first, later]);
    expect(writes).toEqual([
      { kind: 'upsert', ids: ['a'] },
      { kind: 'remove', ids: ['x'] },
      { kind: 'upsert', ids: ['b'] },
    ]);
  });

  it('a refused group is written again call by call: only the bad call fails', async () => {
    const { index, writes } = recordingIndex(1, new Set(['bad']));
    const group = searchWriteGroup(index);
    const results = await Promise.allSettled([
      group.run(() => group.search.upsert([doc('a')])),
      group.run(() => group.search.upsert([doc('bad')])),
      group.run(() => group.search.upsert([doc('c')])),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(writes).toEqual([
      { kind: 'upsert', ids: ['a'] },
      { kind: 'upsert', ids: ['c'] },
    ]);
  });

  it('does not wait longer than maxWaitMs for a handler that is still building', async () => {
    const { index, writes } = recordingIndex(1);
    const group = searchWriteGroup(index, { maxWaitMs: 20 });
    let written = -1;
    const slow = group.run(() => sleep(2_000));
    await group.run(async () => {
      await group.search.upsert([doc('a')]);
      written = writes.length;
    });
    expect(written).toBe(1);
    await slow;
  });
});
