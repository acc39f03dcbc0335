import { postSoap, runBadInputScenario, runSkeletonScenario, type Endpoints } from './skeleton.scenario';
import type { AllInOne } from '../../apps/all-in-one/src/all-in-one';
import { startEmbeddedAllInOne } from './embedded-all-in-one';
import { runLoginScenario } from './login-api.contract';

// The walking skeleton on the embedded adapters (PGlite in memory, in-memory bus and sessions,
// embedded search), through the public HTTP and SOAP interfaces of the all-in-one.
describe('all-in-one on embedded adapters', () => {
  let running: AllInOne;
  let endpoints: Endpoints;

  beforeAll(async () => {
    ({ running, endpoints } = await startEmbeddedAllInOne('all-in-one-test'));
  }, 60_000);

  afterAll(async () => {
    await running?.close();
  });

  it('takes a SOAP product through the catalog and search into a selection', async () => {
    const result = await runSkeletonScenario(endpoints);
    expect(result.searchVisibleAfterMs).toBeLessThan(15_000);
  });

  it('registers, logs out and logs in a customer with the production argon2id cost', async () => {
    await runLoginScenario(endpoints.checkout);
  });

  it('answers bad input with the error envelope and writes nothing', async () => {
    await runBadInputScenario(endpoints);
  });

  it('answers a SOAP body over 10 MB with a SOAP Fault, not the JSON error of the checkout API', async () => {
    const huge = `<products>${'<product><id>x</id></product>'.repeat(400_000)}</products>`;
    const res = await postSoap(endpoints, 'products_Update', huge);
    expect(res.status).toBe(413);
    expect(res.headers.get('content-type')).toMatch(/^text\/xml/);
    expect(res.text).toContain('<faultcode>');
  });

  it('serves its OpenAPI document and health endpoints', async () => {
    const doc = (await (await fetch(`${endpoints.checkout}/openapi.json`)).json()) as { openapi: string; paths: object };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/selection', '/items/{item}', '/products']));
    expect((await fetch(`${running.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${running.url}/readyz`);
    expect(ready.status).toBe(200);
  });
});
