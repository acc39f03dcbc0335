// The SOAP front door's read and parse of a products_Update batch, this tree's against a base revision's, in one
// process on one core (decision 129: the parser made as strict as the W3C XML conformance suite asks). For each
// side: the body reader's checks of the bytes (pre-scan, UTF-8) and decoding, then the parse into entities, as
// the endpoint runs them; the sides alternate, round by round. Reports the median CPU time (process.cpuUsage)
// a batch and the ratio this tree / base. A micro-benchmark: a few seconds.
//
//   npm run bench:xml-parse          # node --expose-gc --import tsx tools/bench/xml-parse.ts
//   BENCH_BASE_REV (7526451, the parser before decision 129), BENCH_SOAP_BATCH (1000), BENCH_ROUNDS (10)
// Under BENCH_SMOKE (npm run bench:smoke, decision 122) a clone without the base revision compares HEAD with itself.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { entityToXml, soapRequestXml } from '@commerce/backoffice-adapters';
import { checkSoapBytes, DEFAULT_BODY_LIMITS } from '../../libs/backoffice/adapters/src/soap/soap-body.reader';
import { parseSoapEnvelope } from '../../libs/backoffice/adapters/src/soap/soap-envelope';
import { updateListOf } from '../../libs/backoffice/adapters/src/soap/soap-operations';
import { generateCatalog } from '../demo/catalog-generator';

const hasRevision = (rev: string): boolean => {
  try {
    execFileSync('git', ['cat-file', '-e', `${rev}^{commit}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
const wantedRev = process.env['BENCH_BASE_REV'] ?? '7526451';
const baseRev = hasRevision(wantedRev) || process.env['BENCH_SMOKE'] !== '1' ? wantedRev : 'HEAD';
const size = Number(process.env['BENCH_SOAP_BATCH'] ?? 1000);
const rounds = Number(process.env['BENCH_ROUNDS'] ?? 10);

const SOAP_DIR = 'libs/backoffice/adapters/src/soap';
/** The files of the read and parse path; the others they import (the mapper, the types) are this tree's. */
const BASE_FILES = ['xml-tree.ts', 'xml-prescan.ts', 'soap-envelope.ts', 'soap-body.reader.ts'];

type Side = { check: typeof checkSoapBytes; parse: typeof parseSoapEnvelope };

/** The base revision's files, written under tmp/ with their imports of files not copied pointed at this tree's. */
async function baseSide(): Promise<{ side: Side; dir: string }> {
  const dir = resolve('tmp', `bench-xml-base-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  for (const file of BASE_FILES) {
    const source = execFileSync('git', ['show', `${baseRev}:${SOAP_DIR}/${file}`], { encoding: 'utf8' });
    const rewired = source.replace(/from '\.\/([\w.-]+)'/g, (whole, name: string) =>
      BASE_FILES.includes(`${name}.ts`) ? whole : `from '${resolve(SOAP_DIR, name)}'`,
    );
    writeFileSync(join(dir, file), rewired);
  }
  const reader = (await import(join(dir, 'soap-body.reader.ts'))) as { checkSoapBytes: typeof checkSoapBytes };
  const envelope = (await import(join(dir, 'soap-envelope.ts'))) as { parseSoapEnvelope: typeof parseSoapEnvelope };
  return { side: { check: reader.checkSoapBytes, parse: envelope.parseSoapEnvelope }, dir };
}

function cpuMs(work: () => unknown): number {
  const before = process.cpuUsage();
  work();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

async function main(): Promise<void> {
  const { products } = generateCatalog({ products: size, brands: 20, leafCategories: 50, seed: 7 });
  const inner = `<products>${products.map((p) => `<product>${entityToXml('Product', p)}</product>`).join('')}</products>`;
  const bytes = Buffer.from(soapRequestXml('products_Update', inner, { username: 'erp', password: 'secret', namespace: 'urn:bench' }));
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += 65536) chunks.push(bytes.subarray(at, at + 65536));

  const { side: base, dir } = await baseSide();
  const sides: Record<'base' | 'this tree', Side> = { base, 'this tree': { check: checkSoapBytes, parse: parseSoapEnvelope } };
  const gc = (globalThis as { gc?: () => void }).gc;
  const times: Record<string, number[]> = {};
  try {
    for (let round = -2; round < rounds; round++) {
      for (const [name, side] of round % 2 ? Object.entries(sides) : Object.entries(sides).reverse()) {
        gc?.();
        let text = '';
        const read = cpuMs(() => (text = side.check(chunks, DEFAULT_BODY_LIMITS).text));
        const parse = cpuMs(() => side.parse(text, DEFAULT_BODY_LIMITS.xml, updateListOf));
        if (round < 0) continue; // warm-up
        (times[`${name}: read`] ??= []).push(read);
        (times[`${name}: parse`] ??= []).push(parse);
        (times[`${name}: read + parse`] ??= []).push(read + parse);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`batch: ${size} products, ${(bytes.length / 1e6).toFixed(2)} MB; base ${baseRev}; ${rounds} rounds each, alternated`);
  console.log(`CPU ms a batch (median / min / max)${gc ? '' : ' (run with --expose-gc for a collection before each side)'}:`);
  for (const [row, xs] of Object.entries(times))
    console.log(
      `  ${row.padEnd(24)} ${median(xs).toFixed(1).padStart(7)} ${Math.min(...xs)
        .toFixed(1)
        .padStart(7)} ${Math.max(...xs)
        .toFixed(1)
        .padStart(7)}`,
    );
  for (const stage of ['read', 'parse', 'read + parse'])
    console.log(
      `ratio this tree / base, ${stage}: ${(median(times[`this tree: ${stage}`]!) / median(times[`base: ${stage}`]!)).toFixed(3)}`,
    );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
