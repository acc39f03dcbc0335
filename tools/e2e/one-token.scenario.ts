import { checkoutCall, searchUntilFound, uniqueWord, upsertPricedProduct, type Endpoints } from './skeleton.scenario';
import { newEmail } from './login-api.contract';

const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'a brand new secret';

/**
 * The flow of a storefront client of the kind published for this API (issue 23): it reads the token of its first
 * answer once and sends that token from then on, never picking up another. init → add → register → logout →
 * login → change e-mail and password → add → order history, every step on the one token (decision 120). Run
 * against the all-in-one and the services as separate processes.
 */
export async function runOneTokenScenario(endpoints: Endpoints): Promise<void> {
  const word = uniqueWord();
  expect((await upsertPricedProduct(endpoints, `ext-${word}`, `One token ${word} Scarf`)).status).toBe(200);
  const item = (await searchUntilFound(endpoints, word)).body['products'][0].items[0].item as string;

  const init = await checkoutCall(endpoints, 'GET', '/selection');
  const token = init.body['token'] as string;
  expect(init.headers.get('api-token')).toBe(token);
  const step = async (what: string, method: string, path: string, body?: unknown) => {
    const res = await checkoutCall(endpoints, method, path, { token, ...(body === undefined ? {} : { body }) });
    expect({ what, status: res.status, token: res.body['token'], header: res.headers.get('api-token') }).toEqual({
      what,
      status: 200,
      token,
      header: token,
    });
    return res.body;
  };
  const lines = (body: Record<string, any>) => body['selection'].items.map((i: { item: string; quantity: number }) => [i.item, i.quantity]);

  expect(lines(await step('add', 'POST', `/items/${item}`))).toEqual([[item, 1]]);
  const email = newEmail();
  const registered = await step('register', 'POST', '/register', { email, password: PASSWORD, firstName: 'Ada' });
  expect(registered['loggedIn']).toMatchObject({ email, firstName: 'Ada' });
  expect(lines(registered)).toEqual([[item, 1]]);

  const out = await step('logout', 'POST', '/logout');
  expect([out['loggedIn'], lines(out)]).toEqual([undefined, []]);
  const denied = await checkoutCall(endpoints, 'POST', '/orders', { token, body: {} });
  expect({ status: denied.status, body: denied.body }).toEqual({ status: 403, body: { token, errors: { accessRight: 'denied' } } });

  const loggedIn = await step('login', 'POST', `/login/${encodeURIComponent(email)}`, { password: PASSWORD });
  expect(loggedIn['loggedIn']).toMatchObject({ email });
  expect(lines(loggedIn)).toEqual([[item, 1]]);

  const newAddress = newEmail();
  expect((await step('change e-mail', 'PUT', '/email', { newEmail: newAddress }))['loggedIn']).toMatchObject({ email: newAddress });
  await step('change password', 'PUT', '/password', { password: PASSWORD, newPassword: NEW_PASSWORD });
  expect(lines(await step('add', 'POST', `/items/${item}`))).toEqual([[item, 2]]);
  const history = await step('order history', 'POST', '/orders', {});
  expect(history['orders']).toEqual([]);
  expect(history['loggedIn']).toMatchObject({ email: newAddress });
  expect(lines(await step('selection', 'GET', '/selection'))).toEqual([[item, 2]]);

  // The changed credentials are the ones that log in, from another client.
  const login = (address: string, password: string) =>
    checkoutCall(endpoints, 'POST', `/login/${encodeURIComponent(address)}`, { body: { password } });
  expect((await login(email, PASSWORD)).status).toBe(406);
  expect((await login(newAddress, NEW_PASSWORD)).status).toBe(200);
}
