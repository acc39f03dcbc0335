import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EngineName, EngineRecord } from '@commerce/shared-testing';
import { readRecords, recordProblems, recordSummary } from './engine-record';

const fromContainer = (engine: EngineName, suite = `${engine} suite`): EngineRecord => ({
  suite,
  engine,
  source: 'container',
  image: `docker.io/example/${engine}`,
  address: `tcp://10.88.0.1:4${engine.length}000`,
  startMs: 1000,
});

describe('the record of a run through testcontainers', () => {
  const all = (['postgres', 'redis', 'kafka', 'meilisearch'] as const).map((e) => fromContainer(e));

  it('proves the container path when every engine came from a container and none from env', () => {
    expect(recordProblems(all)).toEqual([]);
  });

  it('names a suite that took an engine from env', () => {
    const fromEnv: EngineRecord = { suite: 'cart on Postgres', engine: 'postgres', source: 'env', address: 'DATABASE_URL' };
    expect(recordProblems([...all, fromEnv])).toEqual(['cart on Postgres: postgres from DATABASE_URL, not from a container']);
  });

  it('names an engine no suite started, so a run that skipped or fell back cannot pass', () => {
    expect(recordProblems(all.filter((r) => r.engine !== 'kafka'))).toEqual(['no suite got kafka from a container']);
    expect(recordProblems([])).toHaveLength(4);
  });

  it('reads the JSON lines the harness appends, and nothing from a missing file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'engine-record-'));
    writeFileSync(join(dir, 'engines.jsonl'), `${all.map((r) => JSON.stringify(r)).join('\n')}\n`);
    expect(readRecords(join(dir, 'engines.jsonl'))).toEqual(all);
    expect(readRecords(join(dir, 'missing.jsonl'))).toEqual([]);
  });

  it('sums the containers per engine with their mean start time', () => {
    const slow = { ...fromContainer('postgres', 'second'), startMs: 3000 };
    expect(recordSummary([...all, slow])).toContain('postgres 2 (docker.io/example/postgres, mean start 2000 ms)');
  });
});
