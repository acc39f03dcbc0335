import { LoginThrottle } from '@commerce/backoffice-core';
import { createDbEngine, type DbEngine } from '@commerce/shared-db';
import { createScryptPasswordHasher } from '../scrypt.password-hasher';
import {
  HARNESS_USER,
  TEST_SCRYPT_PARAMS,
  testPasswordHash,
  startSoapService,
  type SoapServiceHarness,
} from '../testing/soap-service.harness';
import { soapHeaders, soapRequest } from '../testing/soap-request';

let engine: DbEngine;
let passwordHash: string;
let oldHash: string;
let newHash: string;

beforeAll(async () => {
  engine = await createDbEngine('pglite://memory');
  [passwordHash, oldHash, newHash] = await Promise.all([
    testPasswordHash(HARNESS_USER.password),
    testPasswordHash('old-pw'),
    testPasswordHash('new-pw'),
  ]);
}, 60_000);
afterAll(async () => {
  await engine?.close();
});

const MARKETS = '<markets><market><id>EU</id></market></markets>';

describe('SOAP credentials', () => {
  let h: SoapServiceHarness;
  const as = async (username: string, password: string, headers: Record<string, string> = {}) => {
    const res = await fetch(h.url, {
      method: 'POST',
      headers: { ...soapHeaders('markets_Update'), ...headers },
      body: soapRequest('markets_Update', MARKETS, { username, password }),
    });
    return { status: res.status, headers: res.headers, body: await res.text() };
  };
  beforeEach(async () => {
    h = await startSoapService(engine, passwordHash, {
      users: [{ username: 'rolling', passwordHashes: [oldHash, newHash] }],
      loginThrottle: new LoginThrottle({ perAddress: 4, perUser: 1000, windowMs: 60_000 }),
    });
  });
  afterEach(async () => {
    await h.close();
  });

  it('during a rollover both passwords of a user log in, and nothing else does', async () => {
    expect((await as('rolling', 'old-pw')).status).toBe(200);
    expect((await as('rolling', 'new-pw')).status).toBe(200);
    expect((await as('rolling', HARNESS_USER.password)).status).toBe(500);
  });

  it('checks the login before parsing the document: a stranger gets "login failed" even for broken XML', async () => {
    const broken = (username: string, password: string) =>
      fetch(h.url, {
        method: 'POST',
        headers: soapHeaders('markets_Update'),
        body: soapRequest('markets_Update', '<markets><market><id>EU</id></wrong></markets>', { username, password }),
      }).then((r) => r.text());

    expect(await broken('ghost', 'x')).toContain('<faultstring>login failed</faultstring>');
    expect(await broken(HARNESS_USER.username, HARNESS_USER.password)).toContain('malformed XML');
  });

  it('answers an unknown user and a wrong password with the same Client fault', async () => {
    const wrong = await as(HARNESS_USER.username, 'nope');
    const unknown = await as('ghost', HARNESS_USER.password);

    expect(wrong.status).toBe(500);
    expect(unknown.status).toBe(500);
    expect(wrong.body).toBe(unknown.body);
    expect(wrong.body).toMatch(/<faultcode>[A-Za-z-]+:Client<\/faultcode><faultstring>login failed<\/faultstring>/);
    expect(await h.rows()).toEqual({ received: [], outbox: [] });
  });

  it('after too many failed logins from one address answers 429 with Retry-After and a Fault, even for the right password', async () => {
    for (let i = 0; i < 4; i++) expect((await as(`guess-${i}`, 'x')).status).toBe(500);

    const limited = await as(HARNESS_USER.username, HARNESS_USER.password);

    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('content-type')).toBe('text/xml; charset=utf-8');
    expect(limited.body).toMatch(
      /<faultcode>[A-Za-z-]+:Client<\/faultcode><faultstring>too many failed logins; retry after \d+ s<\/faultstring>/,
    );
    expect(limited.body).toContain('<code>BACKOFFICE.LOGIN_RATE_LIMITED</code>');
    expect(await h.rows()).toEqual({ received: [], outbox: [] });
  });

  it('a refused login runs as many hash checks for an unknown user as for a wrong password', async () => {
    await h.close();
    const checks: string[] = [];
    const real = createScryptPasswordHasher({ params: TEST_SCRYPT_PARAMS });
    h = await startSoapService(engine, passwordHash, {
      users: [{ username: 'rolling', passwordHashes: [oldHash, newHash] }],
      hasher: { hash: real.hash, verify: (plain, encoded) => (checks.push(encoded), real.verify(plain, encoded)) },
    });
    const count = async (user: string, password: string) => {
      checks.splice(0);
      expect((await as(user, password)).status).toBe(500);
      return checks.length;
    };

    expect([await count('erp', 'wrong'), await count('ghost', 'wrong'), await count('rolling', 'wrong'), await count('', '')]).toEqual([
      2, 2, 2, 2,
    ]);
  });
});
