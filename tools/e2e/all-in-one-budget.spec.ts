import type { AllInOne } from '../../apps/all-in-one/src/all-in-one';
import { startEmbeddedAllInOne } from './embedded-all-in-one';
import { postSoap, skeletonPricelistXml, type Endpoints } from './skeleton.scenario';

// The all-in-one gives a checkout API request the edge's budget (REQUEST_BUDGET_MS, decision 142), as checkout-api
// does (decision 132): past it, 503 `temporarily unavailable` with Retry-After. Its SOAP endpoint keeps its own budget.
describe('the all-in-one: the request budget', () => {
  const BUDGET_MS = 150;
  let running: AllInOne;
  let endpoints: Endpoints;

  beforeAll(async () => {
    // A registration's password hash costs many budgets (about a second on a fast core): argon2id with 64 MiB and 40
    // passes, on the thread pool. The budget's timer fires while it runs. With a hash near the budget (10 passes,
    // ~0.2 s) the answer depended on the event loop's order: the account's PGlite statements after the hash run on
    // the main thread, and a request that finished during them past its deadline was answered 200 (its work done).
    ({ running, endpoints } = await startEmbeddedAllInOne('budget-test', [], {
      REQUEST_BUDGET_MS: String(BUDGET_MS),
      ARGON2_MEMORY_KIB: '65536',
      ARGON2_ITERATIONS: '40',
    }));
  }, 120_000);
  afterAll(async () => {
    await running?.close();
  });

  it('answers a checkout request past its budget 503 with Retry-After and the envelope, in time', async () => {
    const started = performance.now();
    const res = await fetch(`${endpoints.checkout}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'slow-hash@example.com', password: 'correct horse battery' }),
    });
    const ms = performance.now() - started;
    const body = (await res.json()) as { token?: string; errors?: Record<string, string> };
    expect({ status: res.status, errors: body.errors }).toEqual({ status: 503, errors: { server: 'temporarily unavailable' } });
    expect(body.token).toEqual(expect.any(String));
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    // The budget and the half second, and as much again for a machine under load.
    expect(ms).toBeLessThan(BUDGET_MS + 1000);
  }, 60_000);

  it('leaves the SOAP endpoint to its own budget: an upsert longer than the checkout budget is acknowledged', async () => {
    // The SOAP login alone (scrypt) takes longer than 150 ms.
    const answer = await postSoap(endpoints, 'pricelists_Update', skeletonPricelistXml('ext-budget'));
    expect(answer.text).toMatch(/>OK</);
  }, 60_000);

  it('asks nothing of the budget of a probe', async () => {
    expect((await fetch(`${running.url}/readyz`)).status).toBe(200);
  });
});
