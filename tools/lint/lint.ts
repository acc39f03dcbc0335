// `npm run lint`: ESLint over the tree, with the module-boundary rule guaranteed to run.
// @nx/enforce-module-boundaries reads Nx's cached project graph and silently skips itself when there is
// none (a fresh clone), so the graph is computed first and a skip is a failure, not a pass.
import { spawnSync } from 'node:child_process';
import { ensureProjectGraph, SKIPPED_RULE_WARNING } from './project-graph';

ensureProjectGraph();
const result = spawnSync(process.execPath, ['node_modules/eslint/bin/eslint.js', ...process.argv.slice(2), '.'], {
  encoding: 'utf8',
  maxBuffer: 64 * 1024 * 1024,
});
process.stdout.write(result.stdout ?? '');
process.stderr.write(result.stderr ?? '');
if (`${result.stdout}${result.stderr}`.includes(SKIPPED_RULE_WARNING)) {
  console.error('lint: @nx/enforce-module-boundaries was skipped (no project graph): module boundaries were NOT checked');
  process.exit(1);
}
process.exit(result.status ?? 1);
