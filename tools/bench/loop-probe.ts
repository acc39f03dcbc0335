// A bench-only preload (`node --import <this file>`, Node's own type stripping: no tsx needed) that records
// where a process stalls: every garbage-collector pause and every event-loop stall (a 5 ms timer that fired
// late by more than LOOP_PROBE_STALL_MS, default 5) with its wall-clock start and length, appended to
// `$LOOP_PROBE_DIR/<pid>.jsonl` once a second. The selection bench (BENCH_STALLS) sets it on every separate
// process and reads the files to tell which slow requests overlapped which process's stall.
// A timer that fires late is the process either busy (its own work, a GC) or waiting for a core (another
// process running on both): the probe cannot tell those apart; the GC entries and the CPU per request can.
import { appendFileSync } from 'node:fs';
import { PerformanceObserver, performance } from 'node:perf_hooks';

/** Starts recording this process's stalls and GC pauses into `<dir>/<pid>.jsonl`. */
export function startLoopProbe(dir: string): void {
  const stallMs = Number(process.env['LOOP_PROBE_STALL_MS'] ?? 5);
  const tickMs = 5;
  const file = `${dir}/${process.pid}.jsonl`;
  const origin = performance.timeOrigin;
  let events: string[] = [];
  const gc = new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      if (entry.duration >= 1)
        events.push(
          JSON.stringify({
            kind: 'gc',
            at: origin + entry.startTime,
            ms: Math.round(entry.duration * 100) / 100,
            // 1 minor (scavenge), 2 major (mark-compact), 4 incremental marking, 8 weak callbacks.
            gc: (entry as { detail?: { kind?: number } }).detail?.kind,
          }),
        );
  });
  gc.observe({ entryTypes: ['gc'] });
  let last = performance.now();
  const tick = setInterval(() => {
    const at = performance.now();
    const late = at - last - tickMs;
    if (late >= stallMs) events.push(JSON.stringify({ kind: 'stall', at: origin + last + tickMs, ms: Math.round(late * 100) / 100 }));
    last = at;
  }, tickMs);
  tick.unref();
  const flush = () => {
    if (events.length === 0) return;
    const lines = events;
    events = [];
    appendFileSync(file, `${lines.join('\n')}\n`);
  };
  setInterval(flush, 1000).unref();
  process.on('exit', flush);
}

const dir = process.env['LOOP_PROBE_DIR'];
if (dir) startLoopProbe(dir);
