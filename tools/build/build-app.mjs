#!/usr/bin/env node
// Bundles apps (apps/<name>/src/main.ts) with esbuild into dist/apps/<name>/main.js, the file a container
// image runs with `node main.js`. npm packages stay external (installed beside it with `npm ci --omit=dev`);
// the workspace's own libraries are bundled in.
//   node tools/build/build-app.mjs apps/<name> [apps/<other> …]
// Each bundle (and its source map) is written to a temporary file and renamed into place, so a process that
// starts a bundle while another build of it runs (the e2e suites and benches build the apps they start,
// tools/e2e/processes.ts) reads a whole file, old or new, never a half-written one.
import { build } from 'esbuild';
import { readFileSync, renameSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..', '..');
const projectRoots = process.argv.slice(2);
if (!projectRoots.length || projectRoots.some((p) => !p.startsWith('apps/'))) {
  console.error('usage: node tools/build/build-app.mjs apps/<name> [apps/<other> …]');
  process.exit(2);
}
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const external = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.devDependencies ?? {})];

async function bundle(projectRoot) {
  const outfile = join(root, 'dist', projectRoot, 'main.js');
  const result = await build({
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
    write: false,
  });
  mkdirSync(dirname(outfile), { recursive: true });
  // The map first: a bundle in place names a map that is already its own.
  const files = [...result.outputFiles].sort((a, b) => Number(b.path.endsWith('.map')) - Number(a.path.endsWith('.map')));
  for (const file of files) {
    const temporary = `${file.path}.${process.pid}.tmp`;
    writeFileSync(temporary, file.contents);
    renameSync(temporary, file.path);
  }
  console.log(`built ${outfile}`);
}

await Promise.all(projectRoots.map(bundle));
