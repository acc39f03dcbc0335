// Where a SOAP batch's "searchable" time goes inside Meilisearch: the run's index tasks (GET /tasks), per
// batch of the bench: how many document tasks, when the first was enqueued and the last finished (from the
// batch's `OK`), the time they waited in the queue and the time Meilisearch spent on them (its batches).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SoapBatchRound } from './soap-batch-round';

export interface MeiliTarget {
  url: string;
  key?: string;
  index: string;
}

export interface MeiliTask {
  uid: number;
  batchUid: number | null;
  type: string;
  status: string;
  details?: { receivedDocuments?: number; indexedDocuments?: number; providedIds?: number };
  duration: string | null;
  enqueuedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

/** `PT1.234S` → 1234 ms (Meilisearch's ISO 8601 durations; minutes when long). */
export const durationMs = (iso: string | null | undefined): number => {
  const m = /^PT(?:(\d+)M)?([\d.]+)S$/.exec(iso ?? '');
  return m ? Math.round((Number(m[1] ?? 0) * 60 + Number(m[2])) * 1000) : 0;
};

export async function tasksOf(target: MeiliTarget): Promise<MeiliTask[]> {
  const tasks: MeiliTask[] = [];
  let from: number | undefined;
  for (;;) {
    const url = `${target.url.replace(/\/+$/, '')}/tasks?indexUids=${encodeURIComponent(target.index)}&limit=1000${from === undefined ? '' : `&from=${from}`}`;
    const res = await fetch(url, { headers: target.key ? { authorization: `Bearer ${target.key}` } : {} });
    if (!res.ok) throw new Error(`GET /tasks answered ${res.status}`);
    const page = (await res.json()) as { results: MeiliTask[]; next: number | null };
    tasks.push(...page.results);
    if (page.next === null) return tasks.reverse();
    from = page.next;
  }
}

/** The tasks enqueued between sending the round's batch and finding it searchable. */
export const tasksOfRound = (tasks: MeiliTask[], round: SoapBatchRound): MeiliTask[] =>
  tasks.filter((t) => {
    const at = Date.parse(t.enqueuedAt);
    return at >= round.sentAt && at <= round.searchableAt;
  });

/** One line per batch on stderr, and every task of the index in `<logDir>/meili-tasks.json`. */
export async function reportMeiliTasks(target: MeiliTarget, rounds: SoapBatchRound[], logDir?: string): Promise<MeiliTask[]> {
  const tasks = await tasksOf(target).catch((error: unknown) => {
    console.error(`meili tasks: ${error instanceof Error ? error.message : String(error)}`);
    return [];
  });
  if (logDir) {
    mkdirSync(logDir, { recursive: true });
    writeFileSync(join(logDir, 'meili-tasks.json'), JSON.stringify(tasks, null, 1));
    // The documents as indexed, for replaying a batch against other settings (tools/bench/meili-settings.ts).
    const docs = await fetch(`${target.url.replace(/\/+$/, '')}/indexes/${encodeURIComponent(target.index)}/documents?limit=20000`, {
      headers: target.key ? { authorization: `Bearer ${target.key}` } : {},
    }).then(async (res) => (res.ok ? ((await res.json()) as { results: unknown[] }).results : []));
    writeFileSync(join(logDir, 'meili-docs.json'), JSON.stringify(docs));
  }
  rounds.forEach((round, i) => {
    const mine = tasksOfRound(tasks, round);
    if (mine.length === 0) return console.error(`meili tasks, batch ${i + 1}: none enqueued between sending and searchable`);
    const from = (iso: string | null) => (iso ? Date.parse(iso) - round.ackAt : NaN);
    const waited = mine.reduce((n, t) => n + (t.startedAt ? Date.parse(t.startedAt) - Date.parse(t.enqueuedAt) : 0), 0);
    const batchesOf = new Map<number | null, number>();
    for (const t of mine) batchesOf.set(t.batchUid, Math.max(batchesOf.get(t.batchUid) ?? 0, durationMs(t.duration)));
    const docs = mine.reduce((n, t) => n + (t.details?.receivedDocuments ?? t.details?.providedIds ?? 0), 0);
    console.error(
      `meili tasks, batch ${i + 1}: ${mine.length} tasks (${[...new Set(mine.map((t) => t.type))].join(', ')}; ${docs} documents) ` +
        `in ${batchesOf.size} Meilisearch batches of ${[...batchesOf.values()].join(', ')} ms; ` +
        `first enqueued ${from(mine[0]!.enqueuedAt)} ms after the OK, last finished ${Math.max(...mine.map((t) => from(t.finishedAt)))} ms; ` +
        `queued ${waited} ms in all; searchable at ${round.searchableAt - round.ackAt} ms`,
    );
  });
  return tasks;
}
