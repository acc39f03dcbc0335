// Builds the demo storefront (apps/storefront) into static files: dist/apps/storefront/{index.html, app.js,
// styles.css, favicon.svg, media/demo/*.svg}. `npm start` runs it first (prestart) and the all-in-one serves the
// folder at `/`; any web server can serve it too, against a checkout API elsewhere (its CORS_ORIGINS):
//   tsx tools/storefront/build.ts [--out DIR] [--api URL]
// The pictures of the demo catalog's media are drawn from DEMO_CATALOG and STORE_CONFIG's swatches.
import { build } from 'esbuild';
import { cpSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { demoMedia } from './demo-media';

const root = resolve(__dirname, '..', '..');
const app = join(root, 'apps', 'storefront');

export interface StorefrontBuild {
  /** Where the files go (replaced whole). */
  outDir: string;
  /** The checkout API's address the shop calls (default `/api/checkout/`, the same origin). */
  apiUrl?: string;
  demoCatalog?: string;
  storeConfig?: string;
}

export async function buildStorefront(options: StorefrontBuild): Promise<void> {
  const outDir = resolve(options.outDir);
  // Built beside the target and swapped in, so a server reading the folder never sees half a build.
  const temporary = `${outDir}.${process.pid}.tmp`;
  rmSync(temporary, { recursive: true, force: true });
  mkdirSync(temporary, { recursive: true });
  await build({
    entryPoints: [join(app, 'src', 'main.ts')],
    outfile: join(temporary, 'app.js'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome110', 'firefox115', 'safari16'],
    minify: true,
    sourcemap: true,
    tsconfig: join(app, 'tsconfig.json'),
    logLevel: 'warning',
  });
  cpSync(join(app, 'public'), temporary, { recursive: true });
  if (options.apiUrl) {
    const index = join(temporary, 'index.html');
    const html = readFileSync(index, 'utf8').replace(
      /(<meta name="checkout-api" content=")[^"]*(")/,
      `$1${options.apiUrl.replace(/"/g, '&quot;')}$2`,
    );
    writeFileSync(index, html);
  }
  const catalog = JSON.parse(readFileSync(resolve(root, options.demoCatalog ?? 'infra/config/demo-catalog.json'), 'utf8'));
  const store = JSON.parse(readFileSync(resolve(root, options.storeConfig ?? 'infra/config/demo-store.json'), 'utf8'));
  for (const [path, svg] of demoMedia(catalog, store.swatches ?? {})) {
    const file = join(temporary, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, svg);
  }
  const old = `${outDir}.${process.pid}.old`;
  mkdirSync(dirname(outDir), { recursive: true });
  try {
    renameSync(outDir, old);
  } catch {
    // no earlier build
  }
  renameSync(temporary, outDir);
  rmSync(old, { recursive: true, force: true });
}

if (require.main === module) {
  const { values } = parseArgs({ options: { out: { type: 'string' }, api: { type: 'string' } } });
  const outDir = values.out ?? join(root, 'dist', 'apps', 'storefront');
  buildStorefront({
    outDir,
    ...(values.api ? { apiUrl: values.api } : {}),
    ...(process.env['DEMO_CATALOG'] ? { demoCatalog: process.env['DEMO_CATALOG'] } : {}),
    ...(process.env['STORE_CONFIG'] ? { storeConfig: process.env['STORE_CONFIG'] } : {}),
  }).then(
    () => console.log(`storefront built in ${outDir}`),
    (err: unknown) => {
      console.error(`storefront build failed: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}
