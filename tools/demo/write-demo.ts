// Regenerates the demo shop's catalog (infra/config/demo-catalog.json) and the category tree and swatch
// colours of the demo store (infra/config/demo-store.json) from tools/demo/catalog-generator.ts.
//
//   npx tsx tools/demo/write-demo.ts
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { generateCatalog } from './catalog-generator';

const root = resolve(__dirname, '../..');
const { categories, swatches, ...catalog } = generateCatalog({ products: 60 });
// One entity a line: readable, and a change to one product is a one-line diff.
const lists = Object.entries(catalog).map(([key, list]) => `  ${JSON.stringify(key)}: [\n${list.map((e) => `    ${JSON.stringify(e)}`).join(',\n')}\n  ]`);
writeFileSync(resolve(root, 'infra/config/demo-catalog.json'), `{\n${lists.join(',\n')}\n}\n`);

const storePath = resolve(root, 'infra/config/demo-store.json');
const store = JSON.parse(readFileSync(storePath, 'utf8')) as Record<string, unknown>;
writeFileSync(storePath, `${JSON.stringify({ ...store, categories, swatches }, null, 2)}\n`);
console.log(`demo catalog: ${catalog.products.length} products, ${catalog.pricelists.length} pricelists, ${catalog.sizes.length} sizes`);

// The Kubernetes ConfigMap carries the same demo store (tools/k8s/manifests.spec.ts keeps them identical).
const configMapPath = resolve(root, 'infra/k8s/base/store-config.yaml');
const configMap = readFileSync(configMapPath, 'utf8');
const marker = '  store.json: |\n';
const at = configMap.indexOf(marker);
if (at < 0) throw new Error(`${configMapPath} has no "store.json: |" block`);
const storeJson = readFileSync(storePath, 'utf8').trimEnd().split('\n').map((line) => `    ${line}`).join('\n');
writeFileSync(configMapPath, `${configMap.slice(0, at + marker.length)}${storeJson}\n`);
