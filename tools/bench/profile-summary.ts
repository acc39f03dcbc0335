// CPU per request per process, from the CPU profiles a bench wrote (`BENCH_PROFILE=<dir>`) and the phases it
// recorded beside them (`phases.json`: each load's monotonic start and end, its request count, and the pid
// of every service process):
//
//   npx tsx tools/bench/profile-summary.ts <dir> [top functions per process, default 15]
//
// For every phase and process: busy ms (samples that are not "(idle)"), busy ms per request, and the
// functions with the most self time in that window. V8 stamps samples with the monotonic clock that
// `process.hrtime` reads, so one bench's windows apply to every service's profile.
//
// The services run as bundles (decision 95), so V8 names positions in `dist/apps/<app>/main.js`; the summary
// reads each bundle's source map (esbuild writes `main.js.map` beside it) and names the source instead:
// `libs/…/file.ts:line`, and a function esbuild renamed (`money2`) by its own name. A bundle rebuilt after a
// profile was taken is not applied (its positions are another build's): its frames keep the bundle's name.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Phase {
  what: string;
  connections: number;
  /** Monotonic microseconds (`process.hrtime.bigint() / 1000n`). */
  startUs: number;
  endUs: number;
  requests: number;
  /** What `requests` counts, where it is not requests (`checkout`: a flow bench's whole checkouts). */
  unit?: string;
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
  /** Zero-based line and column of the function's start in the script. */
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const shortUrl = (url: string) =>
  url.replace(/^file:\/\/.*?\/node_modules\//, '~/').replace(/^file:\/\/.*?\/(libs|apps|tools|dist)\//, '$1/');

/** `CPU.<yyyymmdd>.<hhmmss>.<pid>…`: node names a profile by its process's start, in local time. */
function startOf(profileFile: string): Date | undefined {
  const m = /^CPU\.(\d{4})(\d\d)(\d\d)\.(\d\d)(\d\d)(\d\d)\./.exec(profileFile);
  return m ? new Date(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) : undefined;
}

/** Where a frame's code came from: its script's source map applied, where the script has one that fits. */
class FrameNames {
  private readonly maps = new Map<string, { map: SourceMap; dir: string } | undefined>();
  /** Bundles whose map was not applied, and why (printed once). */
  readonly notMapped = new Map<string, string>();

  /** `started`: when the profiled process started; a script written since then is not mapped. */
  constructor(private readonly started?: Date) {}

  name(frame: ProfileNode['callFrame']): string {
    const where = this.mapOf(frame.url);
    const entry = where?.map.findEntry(frame.lineNumber, frame.columnNumber);
    if (!where || !entry || !('originalSource' in entry))
      return `${frame.functionName || '(anonymous)'} ${shortUrl(frame.url)}:${frame.lineNumber + 1}`;
    const source = resolve(where.dir, entry.originalSource);
    const rel = relative(process.cwd(), source);
    const file = rel.startsWith('..') ? source : rel.replace(/^node_modules\//, '~/');
    // esbuild renames a function whose name another module took (`money` → `money2`) and keeps the name in the
    // map; node gives it as `name` (@types/node's SourceMapping lacks the field).
    const original = (entry as { name?: string }).name;
    const renamed = original && frame.functionName.startsWith(original) && /^\d+$/.test(frame.functionName.slice(original.length));
    const name = renamed ? original : frame.functionName;
    return `${name || '(anonymous)'} ${file}:${entry.originalLine + 1}`;
  }

  private mapOf(url: string) {
    if (!url.startsWith('file://')) return undefined;
    if (this.maps.has(url)) return this.maps.get(url);
    const script = fileURLToPath(url);
    const mapFile = `${script}.map`;
    let found: { map: SourceMap; dir: string } | undefined;
    if (!script.includes('/node_modules/') && existsSync(mapFile)) {
      // The start is to the second: a script written within the second that follows it counts as older.
      if (this.started && statSync(script).mtimeMs >= this.started.getTime() + 1000)
        this.notMapped.set(shortUrl(url), 'rebuilt after the profile was taken: bundle positions');
      else found = { map: new SourceMap(JSON.parse(readFileSync(mapFile, 'utf8'))), dir: dirname(mapFile) };
    }
    this.maps.set(url, found);
    return found;
  }
}

export function summarise(dir: string, top = 15): string {
  const record = JSON.parse(readFileSync(join(dir, 'phases.json'), 'utf8')) as PhaseRecord;
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  const out: string[] = [];
  for (const phase of record.phases) {
    const unit = phase.unit ?? 'request';
    out.push(
      `## ${phase.what}, ${phase.connections} connections: ${phase.requests} ${unit}s in ${((phase.endUs - phase.startUs) / 1e6).toFixed(1)} s`,
    );
    for (const [service, pid] of Object.entries(record.pids)) {
      // The main thread's profile (`.0.`); worker threads (tsx's loader) write their own.
      const file = files.find((f) => f.includes(`.${pid}.0.`));
      if (!file) continue;
      const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile;
      const names = new FrameNames(startOf(file));
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
        const name = names.name(node.callFrame);
        self.set(name, (self.get(name) ?? 0) + delta);
      }
      const perRequest = phase.requests ? busy / 1000 / phase.requests : 0;
      const cpu = phase.cpuMs?.[service];
      const cpuText = cpu === undefined ? '' : `; CPU ${cpu.toFixed(0)} ms, ${(cpu / Math.max(1, phase.requests)).toFixed(3)} ms a ${unit}`;
      // Sampled "busy" counts time the thread waited for a core too; /proc's CPU time does not.
      out.push(`- ${service} (pid ${pid}): busy ${(busy / 1000).toFixed(0)} ms, ${perRequest.toFixed(3)} ms a ${unit}${cpuText}`);
      for (const [name, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top))
        out.push(`    ${((100 * us) / Math.max(1, busy)).toFixed(1).padStart(5)} %  ${name}`);
      for (const [script, why] of names.notMapped) out.push(`    (${script}: ${why})`);
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
