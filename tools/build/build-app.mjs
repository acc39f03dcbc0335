#!/usr/bin/env node
// Bundles one app (apps/<name>/src/main.ts) with esbuild into dist/apps/<name>/main.js, the file a
// container image runs with `node main.js`. npm packages stay external (installed beside it with
// `npm ci --omit=dev`); the workspace's own libraries are bundled in.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..', '..');
const projectRoot = process.argv[2];
if (!projectRoot || !projectRoot.startsWith('apps/')) {
  console.error('usage: node tools/build/build-app.mjs apps/<name>');
  process.exit(2);
}
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const external = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.devDependencies ?? {})];
const outfile = join(root, 'dist', projectRoot, 'main.js');
await build({
  entryPoints: [join(root, projectRoot, 'src', 'main.ts')],
  outfile,
  bundle: true,
  platform: 'node',
  target: 'node24',
  format: 'cjs',
  sourcemap: true,
  external,
  tsconfig: join(root, 'tsconfig.base.json'),
  logLevel: 'warning',
});
console.log(`built ${outfile}`);
