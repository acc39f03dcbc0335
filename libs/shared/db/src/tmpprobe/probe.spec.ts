import * as M from 'node:module';
import knexFactory from 'knex';
import ClientPGLite from 'knex-pglite';
it('probe', async () => {
  const Mod: any = (M as any).default ?? M;
  const path = require.resolve('@electric-sql/pglite');
  const { PGlite } = Mod._load(path, null, false);
  const pglite = new PGlite();
  const knex = knexFactory({ client: ClientPGLite, connection: (() => ({ pglite })) as any });
  await knex.raw('create table t (id serial, at timestamptz, j jsonb, b bytea, arr text[], n int8)');
  const d = new Date('2024-01-02T03:04:05Z');
  await knex('t').insert({ at: d, j: JSON.stringify({ a: [1] }), b: Buffer.from('hi'), arr: ['x', 'y'], n: 5 });
  await knex('t').insert({ at: d.toISOString(), j: { a: 2 } as any, b: new Uint8Array([1,2]), arr: [], n: 6 });
  const rows = await knex('t').select();
  console.log(rows, rows[0].at instanceof Date, Buffer.isBuffer(rows[0].b), rows[0].b instanceof Uint8Array);
  expect(rows[0].at).toEqual(d);
  expect(rows[0].j).toEqual({ a: [1] });
  await knex.destroy();
}, 30000);
