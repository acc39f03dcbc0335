import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { Client } from 'pg';
import { describeWithEngines } from '@commerce/shared-testing';

// tools/infra/up's prune of left-over test schemas and indexes (decision 84), on the real engines, with made-up
// names dated January 2021 and a cut-off a day later, so that nothing a real run left is touched by this spec.
const lib = join(__dirname, 'lib.sh');
const madeAt = Date.UTC(2021, 0, 1);
const cutoffSeconds = Math.floor((madeAt + 24 * 3600_000) / 1000);
const rand = () => Math.random().toString(36).slice(2, 8).padEnd(6, '0');
const ts = (ms: number) => ms.toString(36);

/** Runs a prune function of the lib; what it logs (stderr) is returned. */
function prune(fn: string, ...args: string[]): string {
  return execFileSync('bash', ['-c', `source "$0"; ${fn} "$@" 2>&1`, lib, String(cutoffSeconds), ...args], { encoding: 'utf8' });
}

describeWithEngines('tools/infra prune of left-over test schemas', ['postgres'], (engines) => {
  it('drops the old test-shaped schemas (with their tables) and keeps young ones and names without a time stamp', async () => {
    const tag = rand();
    const stale = [`prune_${ts(madeAt)}_${tag}`, `bench_prune_${process.pid}_${ts(madeAt + 1)}`];
    // Younger than the cut-off, no time stamp, not a test's shape: kept. (The young one is not made by uniqueName:
    // this spec drops it itself.)
    const kept = [`prune_${ts(madeAt + 48 * 3600_000)}_${tag}`, `prunekeep_${tag}`, `prune_${ts(madeAt)}`];
    const pg = new Client({ connectionString: engines.url('postgres') });
    await pg.connect();
    try {
      for (const schema of [...stale, ...kept]) await pg.query(`create schema "${schema}"; create table "${schema}".t (id int)`);

      const log = prune('pg_prune_stale_schemas', engines.url('postgres'));

      expect(log).toContain('dropped 2 of 2 left-over test schemas');
      const { rows } = await pg.query<{ nspname: string }>(`select nspname from pg_namespace where nspname = any($1) order by 1`, [
        [...stale, ...kept],
      ]);
      expect(rows.map((r) => r.nspname)).toEqual([...kept].sort());
    } finally {
      for (const schema of kept) await pg.query(`drop schema if exists "${schema}" cascade`);
      await pg.end();
    }
  }, 60_000);

  it('drops the old test-shaped databases (checkout-payment.int-spec makes one) and keeps young ones, other names and one in use', async () => {
    const tag = rand();
    const stale = `prune_${ts(madeAt)}_${tag}`;
    const inUse = `prune_${ts(madeAt + 1)}_${tag}`;
    const kept = [`prune_${ts(madeAt + 48 * 3600_000)}_${tag}`, `prunekeep_${tag}`, inUse];
    const pg = new Client({ connectionString: engines.url('postgres') });
    await pg.connect();
    const url = (database: string) => Object.assign(new URL(engines.url('postgres')), { pathname: `/${database}` }).toString();
    const user = new Client({ connectionString: url(inUse) });
    try {
      for (const database of [stale, ...kept]) await pg.query(`create database "${database}"`);
      await user.connect();

      const log = prune('pg_prune_stale_databases', engines.url('postgres'));

      expect(log).toContain('dropped 1 of 2 left-over test databases');
      const { rows } = await pg.query<{ datname: string }>(`select datname from pg_database where datname = any($1) order by 1`, [
        [stale, ...kept],
      ]);
      expect(rows.map((r) => r.datname)).toEqual([...kept].sort());
    } finally {
      await user.end().catch(() => undefined);
      for (const database of [stale, ...kept]) await pg.query(`drop database if exists "${database}"`);
      await pg.end();
    }
  }, 60_000);

  it('says nothing and drops nothing with INFRA_PG_PRUNE=0', async () => {
    const schema = `prune_${ts(madeAt)}_${rand()}`;
    const pg = new Client({ connectionString: engines.url('postgres') });
    await pg.connect();
    try {
      await pg.query(`create schema "${schema}"`);
      const log = execFileSync(
        'bash',
        ['-c', `source "$0"; pg_prune_stale_schemas ${cutoffSeconds} "$1" 2>&1`, lib, engines.url('postgres')],
        {
          encoding: 'utf8',
          env: { ...process.env, INFRA_PG_PRUNE: '0' },
        },
      );
      expect(log).toBe('');
      expect((await pg.query(`select 1 from pg_namespace where nspname = $1`, [schema])).rowCount).toBe(1);
    } finally {
      await pg.query(`drop schema if exists "${schema}" cascade`);
      await pg.end();
    }
  }, 60_000);
});

describeWithEngines('tools/infra prune of left-over test indexes', ['meilisearch'], (engines) => {
  it('deletes the old test-shaped indexes and keeps the others', async () => {
    const url = engines.url('meilisearch').replace(/\/+$/, '');
    const key = engines.key('meilisearch') ?? '';
    const headers = { 'content-type': 'application/json', Authorization: `Bearer ${key}` };
    const tag = rand();
    const stale = `prune_products_${ts(madeAt)}_${tag}`;
    const kept = [`prune_products_${ts(madeAt + 48 * 3600_000)}_${tag}`, `prunekeep_${tag}`];
    const there = async (uid: string) => (await fetch(`${url}/indexes/${uid}`, { headers })).status === 200;
    const until = async (check: () => Promise<boolean>) => {
      for (const deadline = Date.now() + 30_000; !(await check());) {
        if (Date.now() > deadline) throw new Error('Meilisearch did not get there in 30 s');
        await new Promise((r) => setTimeout(r, 200));
      }
    };
    try {
      for (const uid of [stale, ...kept]) await fetch(`${url}/indexes`, { method: 'POST', headers, body: JSON.stringify({ uid }) });
      await until(async () => (await Promise.all([stale, ...kept].map(there))).every(Boolean));

      const log = prune('meili_prune_stale_indexes', url, key);

      expect(log).toContain('deleting 1 of 1 indexes');
      await until(async () => !(await there(stale)));
      expect(await Promise.all(kept.map(there))).toEqual([true, true]);
    } finally {
      for (const uid of kept) await fetch(`${url}/indexes/${uid}`, { method: 'DELETE', headers });
    }
  }, 60_000);
});
