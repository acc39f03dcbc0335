import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The fault suite's own engines: a tools/infra instance in a home and on ports of its own, so that pausing or
 * stopping them never touches the instance other suites (or other people) use. FAULTS_INFRA_HOME and
 * FAULTS_{PG,REDIS,KAFKA,MEILI}_PORT move it; `down` stops it again (its data is kept for the next run).
 */
export interface FaultInfraSettings {
  home: string;
  pgPort: number;
  redisPort: number;
  kafkaPort: number;
  meiliPort: number;
}

// Ports below Linux's ephemeral range (32768–60999): late in a CI run, a client socket of an earlier step had taken
// 59292 as its local port and the suite's Kafka could not bind it.
export const faultInfraSettings = (env: NodeJS.ProcessEnv = process.env): FaultInfraSettings => ({
  home: env['FAULTS_INFRA_HOME'] || '/var/tmp/commerce-infra-fault-suite',
  pgPort: Number(env['FAULTS_PG_PORT'] || 25632),
  redisPort: Number(env['FAULTS_REDIS_PORT'] || 26579),
  kafkaPort: Number(env['FAULTS_KAFKA_PORT'] || 29292),
  meiliPort: Number(env['FAULTS_MEILI_PORT'] || 27900),
});

export type Engine = 'redis' | 'postgres' | 'kafka';

export interface FaultInfra {
  /** DATABASE_URL, REDIS_URL, KAFKA_BROKERS, and MEILI_URL with MEILI_MASTER_KEY when the instance runs a Meilisearch. */
  env: Record<string, string>;
  /** SIGSTOP to every process of the engine: it keeps its sockets and answers nothing. */
  pause(engine: 'redis' | 'postgres'): void;
  /** SIGCONT to the processes `pause` stopped (and any the engine made since). */
  resume(engine: 'redis' | 'postgres'): void;
  /** Stops the Kafka broker (SIGTERM, SIGKILL after 30 s) and waits until it is gone. */
  stopKafka(): Promise<void>;
  /** Starts the broker again with tools/infra/up and waits until it serves clients; keeps the run's topics. */
  startKafka(): Promise<void>;
  /** tools/infra/down: every engine of the instance stopped (resumed first, so that they can stop). */
  down(): Promise<void>;
}

const run = (command: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<string> =>
  new Promise((resolve, reject) =>
    execFile(command, args, { env, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      error
        ? reject(new Error(`${command} ${args.join(' ')} failed: ${error.message}\n${stderr.split('\n').slice(-20).join('\n')}`))
        : resolve(stdout),
    ),
  );

const pidIn = (file: string): number => {
  const pid = Number(readFileSync(file, 'utf8').split('\n')[0]!.trim());
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`no pid in ${file}`);
  return pid;
};

/** The pid and its descendants (Linux /proc): a Postgres postmaster and its backends, checkpointer, walwriter… */
function processTree(root: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid …: comm may hold spaces and parentheses, so read after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(Number(entry), ppid);
    } catch {
      // gone meanwhile
    }
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) for (const [pid, ppid] of parents) if (ppid === tree[i]) tree.push(pid);
  return tree;
}

const signal = (pids: number[], sig: NodeJS.Signals): void => {
  for (const pid of pids) {
    try {
      process.kill(pid, sig);
    } catch {
      // exited meanwhile
    }
  }
};

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Starts (or finds running) the suite's own tools/infra instance. */
export async function startFaultInfra(settings = faultInfraSettings()): Promise<FaultInfra> {
  const infraEnv: NodeJS.ProcessEnv = {
    ...process.env,
    INFRA_HOME: settings.home,
    INFRA_PG_PORT: String(settings.pgPort),
    INFRA_REDIS_PORT: String(settings.redisPort),
    INFRA_KAFKA_PORT: String(settings.kafkaPort),
    INFRA_MEILI_PORT: String(settings.meiliPort),
  };
  // The shared instance's key is not this one's: the instance keeps its own (meili/master.key).
  delete infraEnv['MEILI_MASTER_KEY'];
  const exports = await run('tools/infra/up', [], infraEnv, 600_000);
  const env: Record<string, string> = {};
  for (const line of exports.split('\n')) {
    const m = /^export ([A-Z_]+)=(.*)$/.exec(line.trim());
    if (m) env[m[1]!] = m[2]!;
  }
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'KAFKA_BROKERS']) if (!env[name]) throw new Error(`tools/infra/up printed no ${name}`);
  const paused = new Map<string, number[]>();
  const pidsOf = (engine: 'redis' | 'postgres'): number[] =>
    engine === 'redis'
      ? [pidIn(join(settings.home, 'redis/redis.pid'))]
      : processTree(pidIn(join(settings.home, 'pg/data/postmaster.pid')));
  const kafkaPid = () => pidIn(join(settings.home, 'kafka/kafka.pid'));
  const resume = (engine: 'redis' | 'postgres') => {
    signal([...new Set([...(paused.get(engine) ?? []), ...pidsOf(engine)])], 'SIGCONT');
    paused.delete(engine);
  };
  return {
    env,
    pause(engine) {
      const pids = pidsOf(engine);
      paused.set(engine, pids);
      signal(pids, 'SIGSTOP');
    },
    resume,
    async stopKafka() {
      const pid = kafkaPid();
      signal([pid], 'SIGTERM');
      for (const until = Date.now() + 30_000; alive(pid) && Date.now() < until;) await new Promise((r) => setTimeout(r, 100));
      if (alive(pid)) signal([pid], 'SIGKILL');
      while (alive(pid)) await new Promise((r) => setTimeout(r, 50));
    },
    async startKafka() {
      // The run's topics were made before this start: up must not take them for a killed run's left-overs.
      await run('tools/infra/up', [], { ...infraEnv, INFRA_KAFKA_PRUNE: '0', INFRA_PG_PRUNE: '0', INFRA_MEILI_PRUNE: '0' }, 300_000);
    },
    async down() {
      for (const engine of ['redis', 'postgres'] as const) {
        try {
          resume(engine);
        } catch {
          // not running
        }
      }
      await run('tools/infra/down', [], infraEnv, 180_000);
    },
  };
}
