// Nx's project graph, computed (or refreshed) before anything lints: the module-boundary rule reads it
// from .nx/workspace-data and skips itself when it is missing.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

export const SKIPPED_RULE_WARNING = 'No cached ProjectGraph is available';
const root = join(__dirname, '../..');

export function ensureProjectGraph(): void {
  const result = spawnSync(process.execPath, [join(root, 'node_modules/nx/dist/bin/nx.js'), 'show', 'projects'], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true' },
  });
  if (result.status !== 0) {
    throw new Error(`nx could not compute the project graph:\n${result.stderr || result.stdout}`);
  }
}
