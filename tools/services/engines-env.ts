import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

/** The engines' variables: the environment's, else those `tools/infra/env` prints for a running tools/infra. */
export function enginesEnv(): Record<string, string | undefined> {
  if (process.env['DATABASE_URL'] && process.env['REDIS_URL'] && process.env['KAFKA_BROKERS']) return process.env;
  const printed = execFileSync(resolve(__dirname, '../infra/env'), { encoding: 'utf8' });
  const vars = Object.fromEntries([...printed.matchAll(/^export (\w+)=(.*)$/gm)].map(([, name, value]) => [name!, value!]));
  return { ...vars, ...process.env };
}
