import * as nodeModule from 'node:module';
import type { PGlite as PGliteClass, PGliteOptions } from '@electric-sql/pglite';

/** What knex-pglite uses of a PGlite: its readiness, `query` and `close`. */
export interface PgliteConnection {
  waitReady: Promise<void>;
  query: PGliteClass['query'];
  close(): Promise<void>;
}

/**
 * Opens a PGlite (memory when dataDir is undefined). PGlite's emscripten loader calls `import()`,
 * which jest's CommonJS sandbox refuses unless node runs with --experimental-vm-modules. Under jest
 * without that flag, PGlite is loaded through Node's own loader instead, and values crossing between
 * the two JavaScript realms are copied, because PGlite tells a Date or a Uint8Array by `instanceof`.
 */
export function openPglite(dataDir: string | undefined): PgliteConnection {
  if (!needsRealmBridge()) {
    const { PGlite } = require('@electric-sql/pglite') as typeof import('@electric-sql/pglite');
    return new PGlite(dataDir);
  }
  const load = (nodeModule as unknown as { _load(request: string, parent: unknown, isMain: boolean): unknown })._load;
  const { PGlite } = load(require.resolve('@electric-sql/pglite'), null, false) as typeof import('@electric-sql/pglite');
  const options: PGliteOptions = {};
  const pglite = new PGlite(dataDir, options);
  return {
    waitReady: pglite.waitReady,
    query: (async (sql: string, params?: unknown[], opts?: object) => {
      const result = await pglite.query(sql, params?.map(toOuterRealm), opts);
      return { ...result, rows: result.rows.map(toThisRealm) };
    }) as PGliteClass['query'],
    close: () => pglite.close(),
  };
}

function needsRealmBridge(): boolean {
  if (process.env['JEST_WORKER_ID'] === undefined) return false;
  const flags = `${process.execArgv.join(' ')} ${process.env['NODE_OPTIONS'] ?? ''}`;
  return !flags.includes('--experimental-vm-modules');
}

const tagOf = (value: object): string => Object.prototype.toString.call(value);

/** Parameters: PGlite's serializers need its own realm's Date and Uint8Array. */
function toOuterRealm(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(toOuterRealm);
  if (tagOf(value) === '[object Date]') return (value as Date).toISOString();
  if (ArrayBuffer.isView(value)) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  return value;
}

/** Results: rows built in PGlite's realm become this realm's plain objects, arrays and Dates. */
function toThisRealm(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(toThisRealm);
  const tag = tagOf(value);
  if (tag === '[object Date]') return new Date((value as Date).getTime());
  if (ArrayBuffer.isView(value))
    return Buffer.from(value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength) as ArrayBuffer);
  if (tag === '[object Object]') {
    const copy: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) copy[k] = toThisRealm(v);
    return copy;
  }
  return value;
}
