// Where the seconds after a SOAP batch's `OK` go (issue 8's "searchable within 5 s"): one line per batch of
// the bench, every time in ms after the `OK`, from the catalog's debug log (the bench runs it at debug) and
// the run's Meilisearch tasks: when the upsert consumer received each partition's run, when each transaction
// of the apply committed (and how many products it wrote), when the indexer received its runs of
// `ProductUpserted` and when their writes were searchable, each Meilisearch task's enqueued / started /
// finished (and its documents), and when the bench's `POST products` first found the last product.
import { tasksOfRound, type MeiliTask } from './meili-tasks';
import type { SoapBatchRound } from './soap-batch-round';

interface LogLine {
  at: number;
  msg: string;
  fields: Record<string, unknown>;
}

/** The catalog's JSON log lines that date a batch's steps. */
export function timelineLines(log: string): LogLine[] {
  const lines: LogLine[] = [];
  for (const text of log.split('\n')) {
    if (!text.startsWith('{') || !/"msg":"catalog( indexer)?: (upserts (received|consumed)|events received|products indexed)"/.test(text))
      continue;
    try {
      const line = JSON.parse(text) as Record<string, unknown>;
      lines.push({ at: Date.parse(String(line['time'])), msg: String(line['msg']), fields: line });
    } catch {
      // a line cut by the process's end
    }
  }
  return lines;
}

/** One batch's timeline, as one line. */
export function batchTimeline(round: SoapBatchRound, lines: LogLine[], tasks: MeiliTask[]): string {
  const ms = (at: number) => String(at - round.ackAt);
  const mine = lines.filter((l) => l.at >= round.sentAt && l.at <= round.searchableAt);
  const of = (msg: string) => mine.filter((l) => l.msg === msg);
  const n = (value: unknown) => (typeof value === 'number' ? value : 0);
  const parts = [
    `consumer received ${
      of('catalog: upserts received')
        .map((l) => `${ms(l.at)} (${n(l.fields['events'])})`)
        .join(', ') || '-'
    }`,
    `committed ${
      of('catalog: upserts consumed')
        .map((l) => `${ms(l.at)} (${n(l.fields['products'])} products, ${n(l.fields['ms'])} ms)`)
        .join(', ') || '-'
    }`,
    `indexer received ${
      of('catalog indexer: events received')
        .map((l) => `${ms(l.at)} (${n(l.fields['events'])})`)
        .join(', ') || '-'
    }`,
    ...(tasks.length > 0
      ? [
          `meili tasks enqueued/started/finished ${tasksOfRound(tasks, round)
            .map((t) => {
              const at = (iso: string | null) => (iso ? ms(Date.parse(iso)) : '?');
              const docs = t.details?.receivedDocuments ?? t.details?.providedIds ?? 0;
              return `${at(t.enqueuedAt)}/${at(t.startedAt)}/${at(t.finishedAt)} (${docs})`;
            })
            .join(', ')}`,
        ]
      : []),
    `indexed ${
      of('catalog indexer: products indexed')
        .map((l) => `${ms(l.at)} (${n(l.fields['products'])})`)
        .join(', ') || '-'
    }`,
    `searchable ${ms(round.searchableAt)}`,
  ];
  return parts.join('; ');
}
