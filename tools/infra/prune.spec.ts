import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

// The names tools/infra/up deletes from the shared engines (decision 84): made-up names, fed to the lib's filters.
const lib = join(__dirname, 'lib.sh');
const b36 = (ms: number) => ms.toString(36);
const hours = 3600_000;

/** The lib's filters in bash: `filter` of the names on stdin, with `cutoff` in epoch seconds. */
function run(filter: string, names: string[], cutoffMs: number): string[] {
  const out = execFileSync('bash', ['-c', `source "$0"; ${filter} ${Math.floor(cutoffMs / 1000)}`, lib], {
    input: names.join('\n') + '\n',
    encoding: 'utf8',
  });
  return out.split('\n').filter(Boolean);
}
const schemasToPrune = (names: string[], cutoffMs: number) => run('test_shaped_names | stale_test_names', names, cutoffMs);

describe('tools/infra: left-over test names', () => {
  const now = Date.now();
  const cutoff = now - 12 * hours;
  const old = b36(now - 13 * hours);
  const young = b36(now - 11 * hours);

  it('picks the schemas and indexes of int specs, e2e runs and benches made before the cut-off', () => {
    const stale = [`outbox_${old}_1xc5d8`, `bo_feed_${old}_abc123`, `e2e_products_${old}_t62arw`, `bench_soap_cart_2422_${old}`];
    const kept = [`outbox_${young}_1xc5d8`, `bench_sel_cart_2422_${young}`];
    expect(schemasToPrune([...stale, ...kept], cutoff)).toEqual(stale);
  });

  it("never picks a name without a time stamp, the deployment's, Postgres's own, or one not shaped by a test", () => {
    const names = [
      'cart',
      'catalog',
      'order',
      'public',
      'products',
      'catalog_e2e',
      'pg_toast',
      'pg_temp_3',
      'information_schema',
      // shaped like a test's, but the 8 characters are not a time: a word read as 2031, digits as 1970
      'e2e_products_abcdef',
      'x_products_abcdef',
      'x_00000001_abcdef',
      // a time stamp, but not in a test's shape (no 6-character tail; a bench's without its pid)
      `shop_${old}`,
      `shop_${old}_events_log`,
      `bench_${old}`,
    ];
    expect(schemasToPrune(names, now)).toEqual([]);
  });

  it('reads time stamps of topics in their first dot-separated segment, as the broker prune did', () => {
    const topics = [`t_${old}_bggfj9.dlq`, `bench-3202-${old}-6va7.order.order.v1`, `bench-3202-${young}-6va7.order.order.v1`];
    expect(run('stale_test_names', [...topics, '__consumer_offsets', 'order.order.v1', `order.x_${old}`], cutoff)).toEqual(
      topics.slice(0, 2),
    );
  });
});
