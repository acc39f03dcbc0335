import { readFileSync } from 'node:fs';

/**
 * What a process's main thread (a Node service's event loop) did over a stretch of time, from Linux's
 * /proc/<pid>/schedstat (ns on a CPU, ns runnable but waiting on a run queue for one, timeslices): `runMs` it ran,
 * `waitMs` it was ready to run and the box had no CPU for it. A thread that waited longer than it ran was starved
 * by the machine, whatever its work was; one blocked on a lock, a socket or a timer is not runnable and adds to
 * neither.
 */
export interface CpuShare {
  name: string;
  runMs: number;
  waitMs: number;
}

function schedstat(pid: number): { run: number; wait: number } | null {
  try {
    const [run, wait] = readFileSync(`/proc/${pid}/schedstat`, 'utf8').trim().split(/\s+/).map(Number);
    return Number.isFinite(run) && Number.isFinite(wait) ? { run: run!, wait: wait! } : null;
  } catch {
    return null; // not Linux, or the process is gone
  }
}

/** Starts watching the processes; `stop()` answers each one's run and run-queue wait since (none it cannot read). */
export function watchCpuShare(processes: ReadonlyArray<{ name: string; pid: number | undefined }>): { stop(): CpuShare[] } {
  const start = processes.map((p) => ({ name: p.name, pid: p.pid, at: p.pid === undefined ? null : schedstat(p.pid) }));
  return {
    stop: () =>
      start.flatMap(({ name, pid, at }) => {
        const now = pid === undefined ? null : schedstat(pid);
        if (!at || !now) return [];
        return [{ name, runMs: (now.run - at.run) / 1e6, waitMs: (now.wait - at.wait) / 1e6 }];
      }),
  };
}
