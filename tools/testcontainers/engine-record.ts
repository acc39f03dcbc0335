import { existsSync, readFileSync } from 'node:fs';
import { engineEnv, type EngineName, type EngineRecord } from '@commerce/shared-testing';

const engines = Object.keys(engineEnv) as EngineName[];

/** The engines the suites of a run got, as the harness appended them to ENGINES_RECORD (none when no file). */
export function readRecords(file: string): EngineRecord[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as EngineRecord);
}

/** Why a run did not prove the container path: an engine taken from elsewhere, or an engine never started. */
export function recordProblems(records: EngineRecord[]): string[] {
  const problems = records
    .filter((r) => r.source !== 'container')
    .map((r) => `${r.suite}: ${r.engine} from ${r.address}, not from a container`);
  for (const engine of engines) {
    if (!records.some((r) => r.engine === engine && r.source === 'container')) problems.push(`no suite got ${engine} from a container`);
  }
  return problems;
}

/** Per engine: how many containers, of which image, and their mean start time. */
export function recordSummary(records: EngineRecord[]): string {
  return engines
    .map((engine) => {
      const started = records.filter((r) => r.engine === engine && r.source === 'container');
      const mean = started.length ? Math.round(started.reduce((sum, r) => sum + (r.startMs ?? 0), 0) / started.length) : 0;
      return `${engine} ${started.length} (${started[0]?.image ?? 'none'}, mean start ${mean} ms)`;
    })
    .join('; ');
}
