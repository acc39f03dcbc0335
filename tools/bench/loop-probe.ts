// A bench-only preload (`node --import <this file>`, Node's own type stripping: no tsx needed) that records
// where a process stalls: every garbage-collector pause and every event-loop stall (a 5 ms timer that fired
// late by more than LOOP_PROBE_STALL_MS, default 5) with its wall-clock start and length, appended to
// `$LOOP_PROBE_DIR/<pid>.jsonl` once a second; every GC pause is recorded (the report counts the ones ≥ 1 ms
// apart, and all of them for the pauses' count × length), and the process's RSS and young-generation size (V8's `new_space`) once a second. The selection bench (BENCH_STALLS) sets it on every separate
// process and reads the files to tell which slow requests overlapped which process's stall.
// A timer that fires late is the process either busy (its own work, a GC) or waiting for a core (another
// process running on both): the main thread's CPU time over the late tick (`busyMs`) tells them apart.
import { appendFileSync } from 'node:fs';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';

/** Starts recording this process's stalls and GC pauses into `<dir>/<pid>.jsonl`. */
export function startLoopProbe(dir: string): void {
  const stallMs = Number(process.env['LOOP_PROBE_STALL_MS'] ?? 5);
  const tickMs = 5;
  const file = `${dir}/${process.pid}.jsonl`;
  const origin = performance.timeOrigin;
  let events: string[] = [];
  const gc = new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      events.push(
        JSON.stringify({
          kind: 'gc',
          at: origin + entry.startTime,
          ms: Math.round(entry.duration * 1000) / 1000,
          // 1 minor (scavenge), 2 major (mark-compact), 4 incremental marking, 8 weak callbacks.
          gc: (entry as { detail?: { kind?: number } }).detail?.kind,
        }),
      );
  });
  gc.observe({ entryTypes: ['gc'] });
  // The main thread's CPU over a late tick tells a busy loop (its own work, a GC) from one waiting for a core:
  // `busyMs` near the tick's length is the former, far under it the latter.
  const threadMs = () => {
    const { user, system } = process.threadCpuUsage();
    return (user + system) / 1000;
  };
  let last = performance.now();
  let lastCpu = threadMs();
  const tick = setInterval(() => {
    const at = performance.now();
    const cpu = threadMs();
    const late = at - last - tickMs;
    if (late >= stallMs)
      events.push(
        JSON.stringify({ kind: 'stall', at: origin + last + tickMs, ms: Math.round(late * 100) / 100, busyMs: Math.round((cpu - lastCpu) * 100) / 100 }),
      );
    last = at;
    lastCpu = cpu;
  }, tickMs);
  tick.unref();
  const flush = () => {
    const newSpace = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
    const mb = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10;
    events.push(JSON.stringify({ kind: 'mem', at: Date.now(), ms: 0, rssMb: mb(process.memoryUsage.rss()), newSpaceMb: mb(newSpace?.space_size ?? 0) }));
    const lines = events;
    events = [];
    appendFileSync(file, `${lines.join('\n')}\n`);
  };
  setInterval(flush, 1000).unref();
  process.on('exit', flush);
}

const dir = process.env['LOOP_PROBE_DIR'];
if (dir) startLoopProbe(dir);
