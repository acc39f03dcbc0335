type Call = { status: number; headers: Headers; body: Record<string, any> };
export type CallApi = (
  method: string,
  path: string,
  options?: { token?: string; body?: unknown; headers?: Record<string, string> },
) => Promise<Call>;

const ADDRESS_KEYS = ['address1', 'address2', 'city', 'country', 'email', 'firstName', 'lastName', 'phoneNumber', 'state', 'zipCode'];
const GOOD = 'correct horse battery';
let seq = 0;
export const newEmail = () => `shopper-${process.pid}-${Date.now()}-${++seq}@example.com`;

/**
 * The login state machine of the spec (Authentication, States and transitions, Errors) through the
 * public checkout API; run by the selection API contract on each of its adapter sets. A login is attached to
 * the token the visitor holds (decision 120); `rotatingApi` is an edge with `SESSION_ROTATE_ON_LOGIN=true`.
 */
export function loginApiTests(
  callApi: () => CallApi,
  /** The first mail the shop sent to an address (read from the SMTP server the test runs, or from the outbox). */
  mailTo: (address: string) => Promise<{ subject: string; text: string }>,
  frontendUrl: string,
  rotatingApi: () => CallApi,
) {
  // Each call from its own client address (X-Forwarded-For; the edge trusts one ingress here), so the
  // per-address limit only meets the tests that aim at it.
  let addresses = 0;
  const randomAddress = () => `10.${process.pid % 250}.${Math.floor(++addresses / 250) % 250}.${addresses % 250}`;
  const call =
    (): CallApi =>
    (method, path, options = {}) =>
      callApi()(method, path, { ...options, headers: { 'x-forwarded-for': randomAddress(), ...options.headers } });
  const register = (email: string, extra: Record<string, unknown> = {}, token?: string) =>
    call()('POST', '/register', { ...(token ? { token } : {}), body: { email, password: GOOD, ...extra } });

  describe('register', () => {
    it('logs in on the token it was sent, with loggedIn holding exactly the Address fields', async () => {
      const first = await call()('GET', '/selection');
      const email = newEmail();
      const res = await register(email, { firstName: 'Ada', lastName: 'Lovelace', city: 'London', country: 'GB' }, first.body['token']);
      expect(res.status).toBe(200);
      expect(res.body['token']).toBe(first.body['token']);
      expect(res.headers.get('api-token')).toBe(res.body['token']);
      expect(Object.keys(res.body['loggedIn']).sort()).toEqual(ADDRESS_KEYS);
      expect(res.body['loggedIn']).toEqual({
        email,
        firstName: 'Ada',
        lastName: 'Lovelace',
        address1: '',
        address2: '',
        city: 'London',
        state: '',
        country: 'GB',
        phoneNumber: '',
        zipCode: '',
      });
      const later = await call()('GET', '/selection', { token: first.body['token'] });
      expect(later.body['token']).toBe(first.body['token']);
      expect(later.body['loggedIn']).toMatchObject({ email });
    });

    it('keeps the items of the selection', async () => {
      const added = await call()('POST', '/items/3-1');
      const res = await register(newEmail(), {}, added.body['token']);
      expect(res.body['token']).toBe(added.body['token']);
      expect(res.body['selection'].items.map((i: { item: string }) => i.item)).toEqual(['3-1']);
    });

    it('answers an e-mail already registered (in any case) with 409 errors.email, and stays anonymous', async () => {
      const email = newEmail();
      await register(email);
      const first = await call()('GET', '/selection');
      const res = await register(email.toUpperCase(), {}, first.body['token']);
      expect(res).toMatchObject({ status: 409, body: { token: first.body['token'], errors: { email: 'already registered' } } });
      expect((await call()('GET', '/selection', { token: first.body['token'] })).body['loggedIn']).toBeUndefined();
    });

    it.each(['short1', 'password123', '12345678'])('answers the password %j with 406 errors.password = not valid', async (password) => {
      const res = await call()('POST', '/register', { body: { email: newEmail(), password } });
      expect(res).toMatchObject({ status: 406, body: { errors: { password: 'not valid' } } });
    });

    it.each([
      ['no password', { email: 'a@example.com' }, 'password'],
      ['a malformed e-mail', { email: 'not an e-mail', password: GOOD }, 'email'],
      ['a number for a name', { email: 'b@example.com', password: GOOD, firstName: 7 }, 'firstName'],
    ])('answers a body with %s with 400 naming the field', async (_what, body, field) => {
      const res = await call()('POST', '/register', { body });
      expect(res.status).toBe(400);
      expect(res.body['errors']).toHaveProperty(field);
    });
  });

  describe('login', () => {
    it('logs in on the token it was sent, with loggedIn', async () => {
      const email = newEmail();
      await register(email, { firstName: 'Grace' });
      const first = await call()('GET', '/selection');
      const res = await call()('POST', `/login/${encodeURIComponent(email)}`, { token: first.body['token'], body: { password: GOOD } });
      expect(res.status).toBe(200);
      expect(res.body['token']).toBe(first.body['token']);
      expect(res.headers.get('api-token')).toBe(first.body['token']);
      expect(res.body['loggedIn']).toMatchObject({ email, firstName: 'Grace' });
      expect((await call()('GET', '/selection', { token: first.body['token'] })).body['loggedIn']).toMatchObject({ email });
    });

    it('finds the e-mail whatever its case', async () => {
      const email = newEmail();
      await register(email);
      const res = await call()('POST', `/login/${encodeURIComponent(email.toUpperCase())}`, { body: { password: GOOD } });
      expect(res.body['loggedIn']).toMatchObject({ email });
    });

    it('answers an unknown e-mail and a wrong password with the same status and body: 406 errors.password = incorrect', async () => {
      const email = newEmail();
      await register(email);
      const anonymous = await call()('GET', '/selection');
      const token = anonymous.body['token'];
      const wrong = await call()('POST', `/login/${encodeURIComponent(email)}`, { token, body: { password: 'wrong horse battery' } });
      const unknown = await call()('POST', `/login/${encodeURIComponent(newEmail())}`, { token, body: { password: GOOD } });
      expect(wrong.status).toBe(406);
      expect(unknown.status).toBe(wrong.status);
      expect(unknown.body).toEqual(wrong.body);
      expect(wrong.body).toEqual({ token, errors: { password: 'incorrect' } });
      expect([...unknown.headers.keys()].filter((h) => h !== 'date' && h !== 'x-request-id').sort()).toEqual(
        [...wrong.headers.keys()].filter((h) => h !== 'date' && h !== 'x-request-id').sort(),
      );
    });

    it('answers a login without a password string with 400', async () => {
      const res = await call()('POST', `/login/${encodeURIComponent(newEmail())}`, { body: { password: 12345678 } });
      expect(res.status).toBe(400);
    });
  });

  describe('logout', () => {
    it('removes loggedIn and empties the selection, on the same token, in the same country', async () => {
      const added = await call()('POST', '/items/3-1');
      const reg = await register(newEmail(), {}, added.body['token']);
      const out = await call()('POST', '/logout', { token: reg.body['token'] });
      expect(out.status).toBe(200);
      expect(out.body['token']).toBe(reg.body['token']);
      expect(out.body['loggedIn']).toBeUndefined();
      expect(out.body['selection'].items).toEqual([]);
      expect(out.body['location'].country).toBe(reg.body['location'].country);
      const later = await call()('GET', '/selection', { token: reg.body['token'] });
      expect(later.body['token']).toBe(reg.body['token']);
      expect(later.body['loggedIn']).toBeUndefined();
      expect(later.body['selection'].items).toEqual([]);
    });
  });

  describe('with SESSION_ROTATE_ON_LOGIN=true (decision 35 as an option)', () => {
    const rotating =
      (): CallApi =>
      (method, path, options = {}) =>
        rotatingApi()(method, path, { ...options, headers: { 'x-forwarded-for': randomAddress(), ...options.headers } });
    const names = (c: Call) => c.body['selection'].items.map((i: { item: string }) => i.item);

    it('register, login and logout answer a new token; the token sent before carries neither the login nor the selection', async () => {
      const email = newEmail();
      const added = await rotating()('POST', '/items/3-1');
      const reg = await rotating()('POST', '/register', { token: added.body['token'], body: { email, password: GOOD } });
      expect(reg.status).toBe(200);
      expect(reg.body['token']).not.toBe(added.body['token']);
      expect(reg.headers.get('api-token')).toBe(reg.body['token']);
      expect(names(reg)).toEqual(['3-1']);
      const before = await rotating()('GET', '/selection', { token: added.body['token'] });
      expect([before.body['loggedIn'], names(before)]).toEqual([undefined, []]);

      const visitor = await rotating()('GET', '/selection');
      const login = await rotating()('POST', `/login/${encodeURIComponent(email)}`, {
        token: visitor.body['token'],
        body: { password: GOOD },
      });
      expect(login.status).toBe(200);
      expect(login.body['token']).not.toBe(visitor.body['token']);
      expect(login.body['loggedIn']).toMatchObject({ email });
      expect(names(login)).toEqual(['3-1']);
      expect((await rotating()('GET', '/selection', { token: visitor.body['token'] })).body['loggedIn']).toBeUndefined();

      const out = await rotating()('POST', '/logout', { token: login.body['token'] });
      expect(out.body['token']).not.toBe(login.body['token']);
      expect([out.body['loggedIn'], names(out)]).toEqual([undefined, []]);
      const loggedOut = await rotating()('GET', '/selection', { token: login.body['token'] });
      expect([loggedOut.body['loggedIn'], names(loggedOut)]).toEqual([undefined, []]);
      // The login on the token registered with is untouched by the other token's logout.
      expect((await rotating()('GET', '/selection', { token: reg.body['token'] })).body['loggedIn']).toMatchObject({ email });
    });
  });

  describe('saved selection', () => {
    const items = (c: Call) => c.body['selection'].items.map((i: { item: string; quantity: number }) => [i.item, i.quantity]);
    const login = (email: string, token?: string, headers?: Record<string, string>) =>
      call()('POST', `/login/${encodeURIComponent(email)}`, {
        ...(token ? { token } : {}),
        body: { password: GOOD },
        ...(headers ? { headers } : {}),
      });

    it('is the same selection from another token while logged in, both ways', async () => {
      const email = newEmail();
      const a = (await register(email)).body['token'];
      await call()('POST', '/items/3-1', { token: a });
      const b = await login(email);
      expect(items(b)).toEqual([['3-1', 1]]);
      await call()('POST', '/items/1-1', { token: b.body['token'] });
      expect(items(await call()('GET', '/selection', { token: a }))).toEqual([
        ['3-1', 1],
        ['1-1', 1],
      ]);
    });

    it('shows a saved selection another device made after this one logged in', async () => {
      const email = newEmail();
      const a = (await register(email)).body['token'];
      const b = (await login(email)).body['token'];
      await call()('POST', '/items/3-2', { token: a });
      expect(items(await call()('GET', '/selection', { token: b }))).toEqual([['3-2', 1]]);
      const added = await call()('POST', '/items/3-2', { token: b });
      expect(items(added)).toEqual([['3-2', 2]]);
    });

    it('merges the anonymous lines into the saved selection at login (an item on both adds up)', async () => {
      const email = newEmail();
      const a = (await register(email)).body['token'];
      await call()('POST', '/items/3-1', { token: a });
      await call()('POST', '/logout', { token: a });
      const anonymous = await call()('POST', '/items/3-1');
      await call()('POST', '/items/1-1', { token: anonymous.body['token'] });
      const res = await login(email, anonymous.body['token']);
      const merged = [
        ['3-1', 2],
        ['1-1', 1],
      ];
      expect(res.body['token']).toBe(anonymous.body['token']);
      expect(items(res)).toEqual(merged);
      // The merge happened once: out and in again on the same token, the saved selection is as it was.
      expect(items(await call()('POST', '/logout', { token: anonymous.body['token'] }))).toEqual([]);
      expect(items(await login(email, anonymous.body['token']))).toEqual(merged);
    });

    it('leaves an empty anonymous selection at logout and gives the saved one back at the next login', async () => {
      const email = newEmail();
      const a = (await register(email)).body['token'];
      await call()('POST', '/items/3-1', { token: a });
      const out = await call()('POST', '/logout', { token: a });
      expect(items(out)).toEqual([]);
      expect(items(await login(email, out.body['token']))).toEqual([['3-1', 1]]);
    });

    it("never moves one customer's saved selection to another who logs in on the same token", async () => {
      const a = newEmail();
      const b = newEmail();
      await register(b);
      const tokenA = (await register(a)).body['token'];
      await call()('POST', '/items/3-1', { token: tokenA });
      const asB = await login(b, tokenA);
      expect(asB.body['loggedIn'].email).toBe(b);
      expect(items(asB)).toEqual([]);
      expect(items(await login(a))).toEqual([['3-1', 1]]);
    });

    it('shows the saved selection in the market of the device that logs in', async () => {
      const email = newEmail();
      const a = (await register(email)).body['token'];
      const sek = await call()('POST', '/items/3-1', { token: a });
      expect(sek.body['selection'].currency).toBe('SEK');
      const german = await call()('GET', '/selection', { headers: { 'cf-ipcountry': 'DE' } });
      const res = await login(email, german.body['token']);
      expect(res.body['selection'].currency).toBe('EUR');
      expect(res.body['selection'].items[0]).toMatchObject({ item: '3-1', priceEachAsNumber: 25 });
      expect(res.body['location'].country).toBe('DE');
    });
  });

  describe('guessing limits', () => {
    const from = (address: string) => ({ 'x-forwarded-for': address });
    const tryLogin = (email: string, password: string, address: string) =>
      call()('POST', `/login/${encodeURIComponent(email)}`, { body: { password }, headers: from(address) });

    it('after 5 failed logins of an account (the test limit) answers 429 with errors and Retry-After, whatever the address and password', async () => {
      const email = newEmail();
      await register(email);
      for (let i = 0; i < 5; i++) expect((await tryLogin(email, 'wrong horse battery', `10.200.0.${i}`)).status).toBe(406);
      const limited = await tryLogin(email, GOOD, '10.200.1.1');
      expect(limited.status).toBe(429);
      expect(limited.body['errors']).toEqual({ password: 'too many attempts, try again later' });
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(3000);
      expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(3600);
    });

    it('limits an unknown e-mail the same way, so the limit reveals nothing either', async () => {
      const email = newEmail();
      for (let i = 0; i < 5; i++) expect((await tryLogin(email, 'wrong horse battery', `10.201.0.${i}`)).status).toBe(406);
      expect((await tryLogin(email, GOOD, '10.201.1.1')).status).toBe(429);
    });

    it('after 8 failed logins from one address (the test limit) answers that address 429, while a correct login from another address works', async () => {
      const email = newEmail();
      await register(email);
      for (let i = 0; i < 8; i++) expect((await tryLogin(newEmail(), GOOD, '10.202.0.1')).status).toBe(406);
      const limited = await tryLogin(email, GOOD, '10.202.0.1');
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await tryLogin(email, GOOD, '10.202.0.2')).status).toBe(200);
    });

    it('guards register too: the 9th registration from one address is 429 with errors.email', async () => {
      for (let i = 0; i < 8; i++) {
        const res = await call()('POST', '/register', { body: { email: newEmail(), password: GOOD }, headers: from('10.203.0.1') });
        expect(res.status).toBe(200);
      }
      const limited = await call()('POST', '/register', { body: { email: newEmail(), password: GOOD }, headers: from('10.203.0.1') });
      expect(limited.status).toBe(429);
      expect(limited.body['errors']).toEqual({ email: 'too many attempts, try again later' });
      expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    });
  });

  describe('password reset', () => {
    const linkOf = (mail: { text: string }) => new URL(/https?:\/\/\S+/.exec(mail.text)![0]);
    const resetEmail = (email: string, body: unknown, headers?: Record<string, string>) =>
      call()('POST', `/password-reset-email/${encodeURIComponent(email)}`, { body, ...(headers ? { headers } : {}) });

    it('mails a link (frontend URL + linkUri, query id and i) that logs in on the token with the new password and ends every other login', async () => {
      const email = newEmail();
      const first = (await register(email, { firstName: 'Ada' })).body['token'];
      const other = (await call()('POST', `/login/${encodeURIComponent(email)}`, { body: { password: GOOD } })).body['token'];
      await call()('POST', '/items/3-1', { token: first });
      const asked = await resetEmail(email, { linkUri: '/account/new-password' });
      expect(asked.status).toBe(200);
      expect(asked.body['errors']).toBeUndefined();
      const mail = await mailTo(email);
      expect(mail.subject).toBe('Reset your password');
      const link = linkOf(mail);
      expect(`${link.origin}${link.pathname}`).toBe(`${frontendUrl.replace(/\/$/, '')}/account/new-password`);
      expect([...link.searchParams.keys()].sort()).toEqual(['i', 'id']);

      const visitor = await call()('GET', '/selection');
      const reset = await call()('POST', '/password-reset', {
        token: visitor.body['token'],
        body: { newPassword: 'a brand new secret', i: link.searchParams.get('i'), id: link.searchParams.get('id') },
      });
      expect(reset.status).toBe(200);
      expect(reset.body['token']).toBe(visitor.body['token']);
      expect(reset.body['loggedIn']).toMatchObject({ email, firstName: 'Ada' });
      // The saved selection comes with the login.
      expect(reset.body['selection'].items.map((i: { item: string }) => i.item)).toEqual(['3-1']);
      // Every other login of the customer ended; their tokens go on as anonymous ones, as after a logout.
      for (const token of [first, other]) {
        const old = await call()('GET', '/selection', { token });
        expect(old.body['loggedIn']).toBeUndefined();
        expect(old.body['token']).toBe(token);
        expect(old.body['selection'].items).toEqual([]);
        expect((await call()('PUT', '/address', { token, body: { city: 'Paris' } })).status).toBe(403);
      }
      expect((await call()('GET', '/selection', { token: reset.body['token'] })).body['loggedIn']).toMatchObject({ email });
      const login = (password: string) => call()('POST', `/login/${encodeURIComponent(email)}`, { body: { password } });
      expect((await login(GOOD)).status).toBe(406);
      expect((await login('a brand new secret')).status).toBe(200);
      // Single use.
      const again = await call()('POST', '/password-reset', {
        body: { newPassword: 'another new secret', i: link.searchParams.get('i'), id: link.searchParams.get('id') },
      });
      expect(again).toMatchObject({ status: 406, body: { errors: { i: 'not valid' } } });
    });

    it('answers a known and an unknown e-mail alike: same status, same body, same headers', async () => {
      const known = newEmail();
      await register(known);
      const token = (await call()('GET', '/selection')).body['token'];
      const a = await call()('POST', `/password-reset-email/${encodeURIComponent(known)}`, { token, body: {} });
      const b = await call()('POST', `/password-reset-email/${encodeURIComponent(newEmail())}`, { token, body: {} });
      expect(a.status).toBe(200);
      expect(b.status).toBe(a.status);
      expect(b.body).toEqual(a.body);
      const names = (c: Call) => [...c.headers.keys()].filter((h) => h !== 'date' && h !== 'x-request-id').sort();
      expect(names(b)).toEqual(names(a));
      expect(linkOf(await mailTo(known)).pathname).toBe(new URL(frontendUrl).pathname);
    });

    it.each(['https://evil.example/reset', '//evil.example/reset', '/a/../../reset', '/reset?next=https://evil.example'])(
      'refuses the linkUri %j with 400 errors.linkUri',
      async (linkUri) => {
        const res = await resetEmail(newEmail(), { linkUri });
        expect(res.status).toBe(400);
        expect(res.body['errors']).toHaveProperty('linkUri');
      },
    );

    it('refuses an unknown link with 406 errors.i, a refused new password with 406 errors.newPassword, a body without i with 400', async () => {
      const email = newEmail();
      await register(email);
      await resetEmail(email, {});
      const link = linkOf(await mailTo(email));
      const body = (newPassword: string, i = link.searchParams.get('i')) => ({ newPassword, i, id: link.searchParams.get('id') });
      expect(await call()('POST', '/password-reset', { body: body('a brand new secret', 'A'.repeat(43)) })).toMatchObject({
        status: 406,
        body: { errors: { i: 'not valid' } },
      });
      expect(await call()('POST', '/password-reset', { body: body('password') })).toMatchObject({
        status: 406,
        body: { errors: { newPassword: 'not valid' } },
      });
      expect((await call()('POST', '/password-reset', { body: { newPassword: 'a brand new secret' } })).status).toBe(400);
      // The refused password did not use the link up.
      expect((await call()('POST', '/password-reset', { body: body('a brand new secret') })).status).toBe(200);
    });

    it('is guarded like register: the 9th request from one address is 429 with errors.email and Retry-After', async () => {
      const from = { 'x-forwarded-for': '10.204.0.1' };
      for (let i = 0; i < 8; i++) expect((await resetEmail(newEmail(), {}, from)).status).toBe(200);
      const limited = await resetEmail(newEmail(), {}, from);
      expect(limited.status).toBe(429);
      expect(limited.body['errors']).toEqual({ email: 'too many attempts, try again later' });
      expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    });
  });

  describe('subscriptions', () => {
    it('POST newsletter-subscription is idempotent and answers the envelope; a malformed e-mail is 400 errors.email', async () => {
      const email = newEmail();
      const a = await call()('POST', '/newsletter-subscription', { body: { email, country: 'SE', language: 'sv' } });
      expect(a.status).toBe(200);
      expect(a.body['selection']).toBeDefined();
      expect((await call()('POST', '/newsletter-subscription', { body: { email } })).status).toBe(200);
      const bad = await call()('POST', '/newsletter-subscription', { body: { email: 'not an e-mail' } });
      expect(bad.status).toBe(400);
      expect(bad.body['errors']).toHaveProperty('email');
    });

    it('POST back-in-stock-subscription takes an item the catalog has, else 404 errors.item', async () => {
      expect((await call()('POST', '/back-in-stock-subscription', { body: { email: newEmail(), item: '3-1' } })).status).toBe(200);
      const unknown = await call()('POST', '/back-in-stock-subscription', { body: { email: newEmail(), item: '99-9' } });
      expect(unknown).toMatchObject({ status: 404, body: { errors: { item: 'product item not found' } } });
      expect((await call()('POST', '/back-in-stock-subscription', { body: { email: 'x', item: '3-1' } })).status).toBe(400);
    });
  });

  describe('operations that need a login', () => {
    it.each([
      ['PUT', '/address', { city: 'Paris' }],
      ['PUT', '/customer/update', { firstName: 'Paul' }],
      ['PUT', '/email', { newEmail: 'x@example.com' }],
      ['PUT', '/password', { password: GOOD, newPassword: 'another good one' }],
    ])('%s %s answers 403 errors.accessRight = denied when not logged in', async (method, path, body) => {
      const res = await call()(method, path, { body });
      expect(res).toMatchObject({ status: 403, body: { errors: { accessRight: 'denied' } } });
    });

    it('PUT address and PUT customer/update change the address in loggedIn, keeping the other fields', async () => {
      const reg = await register(newEmail(), { firstName: 'Ada' });
      const token = reg.body['token'];
      const address = await call()('PUT', '/address', {
        token,
        body: { address1: 'Drottninggatan 1', zipCode: '111 51', city: 'Stockholm', country: 'SE' },
      });
      expect(address.status).toBe(200);
      expect(address.body['loggedIn']).toMatchObject({
        firstName: 'Ada',
        address1: 'Drottninggatan 1',
        zipCode: '111 51',
        city: 'Stockholm',
        country: 'SE',
      });
      const profile = await call()('PUT', '/customer/update', { token, body: { firstName: 'Ada Augusta', phoneNumber: '+46 8 123' } });
      expect(profile.body['loggedIn']).toMatchObject({ firstName: 'Ada Augusta', phoneNumber: '+46 8 123', city: 'Stockholm' });
      expect(profile.body['token']).toBe(token);
      const bad = await call()('PUT', '/address', { token, body: { email: 'other@example.com' } });
      expect(bad.status).toBe(400);
      // Named by the field, whatever its value, as every bad field is: never under `body`.
      expect(bad.body['errors']).toEqual({ email: 'unknown field' });
      const typo = await call()('PUT', '/address', { token, body: { zipcode: '111 51' } });
      expect({ status: typo.status, errors: typo.body['errors'] }).toEqual({ status: 400, errors: { zipcode: 'unknown field' } });
    });

    it('PUT email changes the e-mail to log in with, and answers one another customer has with 409 errors.newEmail', async () => {
      const taken = newEmail();
      await register(taken);
      const reg = await register(newEmail());
      const token = reg.body['token'];
      const next = newEmail();
      const changed = await call()('PUT', '/email', { token, body: { newEmail: next } });
      expect(changed.body['loggedIn'].email).toBe(next);
      expect((await call()('POST', `/login/${encodeURIComponent(next)}`, { body: { password: GOOD } })).status).toBe(200);
      const conflict = await call()('PUT', '/email', { token, body: { newEmail: taken } });
      expect(conflict).toMatchObject({ status: 409, body: { errors: { newEmail: 'already registered' } } });
    });

    it('PUT password needs the current password and a new one the policy accepts', async () => {
      const email = newEmail();
      const token = (await register(email)).body['token'];
      const wrong = await call()('PUT', '/password', { token, body: { password: 'wrong horse battery', newPassword: 'another good one' } });
      expect(wrong).toMatchObject({ status: 406, body: { errors: { password: 'incorrect' } } });
      const weak = await call()('PUT', '/password', { token, body: { password: GOOD, newPassword: 'password' } });
      expect(weak).toMatchObject({ status: 406, body: { errors: { newPassword: 'not valid' } } });
      expect((await call()('PUT', '/password', { token, body: { password: GOOD, newPassword: 'another good one' } })).status).toBe(200);
      const login = (password: string) => call()('POST', `/login/${encodeURIComponent(email)}`, { body: { password } });
      expect((await login(GOOD)).status).toBe(406);
      expect((await login('another good one')).status).toBe(200);
    });
  });
}

/** The login round trip against a running checkout API (the all-in-one, or the services as separate processes). */
export async function runLoginScenario(checkoutBase: string): Promise<void> {
  const post = async (path: string, body: unknown, token?: string) => {
    const res = await fetch(`${checkoutBase}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { 'API-Token': token } : {}) },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  const email = newEmail();
  const registered = await post('/register', { email, password: GOOD, firstName: 'Ada' });
  expect(registered.status).toBe(200);
  expect(registered.body['loggedIn']).toMatchObject({ email, firstName: 'Ada' });
  const out = await post('/logout', {}, registered.body['token']);
  expect(out.body['loggedIn']).toBeUndefined();
  const wrong = await post(`/login/${encodeURIComponent(email)}`, { password: 'wrong horse battery' }, out.body['token']);
  const unknown = await post(`/login/${encodeURIComponent(newEmail())}`, { password: GOOD }, out.body['token']);
  expect(wrong).toEqual({ status: 406, body: { token: out.body['token'], errors: { password: 'incorrect' } } });
  expect(unknown).toEqual(wrong);
  const login = await post(`/login/${encodeURIComponent(email)}`, { password: GOOD }, out.body['token']);
  expect(login.status).toBe(200);
  expect(login.body['loggedIn']).toMatchObject({ email });
}
