// CPU per request per process, from the CPU profiles a bench wrote (`BENCH_PROFILE=<dir>`) and the phases it
// recorded beside them (`phases.json`: each load's monotonic start and end, its request count, and the pid
// of every service process):
//
//   npx tsx tools/bench/profile-summary.ts <dir> [top functions per process, default 15]
//
// For every phase and process: busy ms (samples that are not "(idle)"), busy ms per request, and the
// functions with the most self time in that window. V8 stamps samples with the monotonic clock that
// `process.hrtime` reads, so one bench's windows apply to every service's profile.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export interface Phase {
  what: string;
  connections: number;
  /** Monotonic microseconds (`process.hrtime.bigint() / 1000n`). */
  startUs: number;
  endUs: number;
  requests: number;
  /** CPU time each service process used during the phase (ms, from /proc: user + system), where readable. */
  cpuMs?: Record<string, number>;
}
export interface PhaseRecord {
  /** Service name → pid. */
  pids: Record<string, number>;
  phases: Phase[];
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const shortUrl = (url: string) => url.replace(/^file:\/\/.*?\/node_modules\//, '~/').replace(/^file:\/\/.*?\/(libs|apps|tools)\//, '$1/');

export function summarise(dir: string, top = 15): string {
  const record = JSON.parse(readFileSync(join(dir, 'phases.json'), 'utf8')) as PhaseRecord;
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  const out: string[] = [];
  for (const phase of record.phases) {
    out.push(
      `## ${phase.what}, ${phase.connections} connections: ${phase.requests} requests in ${((phase.endUs - phase.startUs) / 1e6).toFixed(1)} s`,
    );
    for (const [service, pid] of Object.entries(record.pids)) {
      // The main thread's profile (`.0.`); worker threads (tsx's loader) write their own.
      const file = files.find((f) => f.includes(`.${pid}.0.`));
      if (!file) continue;
      const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile;
      const byId = new Map(profile.nodes.map((n) => [n.id, n]));
      const self = new Map<string, number>();
      let busy = 0;
      let t = profile.startTime;
      for (let i = 0; i < profile.samples.length; i++) {
        const delta = profile.timeDeltas[i] ?? 0;
        t += delta;
        if (t < phase.startUs || t > phase.endUs) continue;
        const node = byId.get(profile.samples[i]!)!;
        if (node.callFrame.functionName === '(idle)') continue;
        busy += delta;
        const name = `${node.callFrame.functionName || '(anonymous)'} ${shortUrl(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`;
        self.set(name, (self.get(name) ?? 0) + delta);
      }
      const perRequest = phase.requests ? busy / 1000 / phase.requests : 0;
      const cpu = phase.cpuMs?.[service];
      const cpuText = cpu === undefined ? '' : `; CPU ${cpu.toFixed(0)} ms, ${(cpu / Math.max(1, phase.requests)).toFixed(3)} ms a request`;
      // Sampled "busy" counts time the thread waited for a core too; /proc's CPU time does not.
      out.push(`- ${service} (pid ${pid}): busy ${(busy / 1000).toFixed(0)} ms, ${perRequest.toFixed(3)} ms a request${cpuText}`);
      for (const [name, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top))
        out.push(`    ${((100 * us) / Math.max(1, busy)).toFixed(1).padStart(5)} %  ${name}`);
    }
  }
  return out.join('\n');
}

if (process.argv[1]?.endsWith('profile-summary.ts')) {
  const [dir, top] = process.argv.slice(2);
  if (!dir) {
    console.error('usage: npx tsx tools/bench/profile-summary.ts <profile dir> [top]');
    process.exit(2);
  }
  console.log(summarise(dir, top ? Number(top) : undefined));
}
