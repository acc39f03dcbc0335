// Copies infra/config/demo-store.json into the ConfigMap of infra/k8s/base/store-config.yaml (kept identical,
// see manifests.spec.ts): `npx tsx tools/k8s/sync-store-config.ts` after changing the demo store.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const yamlPath = join(root, 'infra', 'k8s', 'base', 'store-config.yaml');
const json = readFileSync(join(root, 'infra', 'config', 'demo-store.json'), 'utf8').trimEnd();
const yaml = readFileSync(yamlPath, 'utf8');
const marker = '  store.json: |\n';
const at = yaml.indexOf(marker);
if (at < 0) throw new Error(`no "store.json: |" block in ${yamlPath}`);
const start = at + marker.length;
// The block runs while lines are indented by 4 spaces (or empty).
const lines = yaml.slice(start).split('\n');
let end = 0;
while (
  end < lines.length &&
  (lines[end]!.startsWith('    ') || (lines[end] === '' && end < lines.length - 1 && lines[end + 1]!.startsWith('    ')))
)
  end++;
const block = json
  .split('\n')
  .map((l) => (l ? `    ${l}` : l))
  .join('\n');
writeFileSync(yamlPath, yaml.slice(0, start) + block + '\n' + lines.slice(end).join('\n'));
