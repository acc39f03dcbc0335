import { DeadlineExceededError, unavailableCause } from './unavailable';

describe('unavailableCause', () => {
  it.each([
    [new Error('Query read timeout'), 'database'],
    [new Error('timeout expired'), 'database'],
    [new Error('Connection terminated due to connection timeout'), 'database'],
    [Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }), 'database'],
    [
      Object.assign(new Error('Knex: Timeout acquiring a connection. The pool is probably full.'), { name: 'KnexTimeoutError' }),
      'database',
    ],
    [new Error('Command timed out'), 'redis'],
    [Object.assign(new Error('request timed out after 2000ms'), { name: 'MeilisearchRequestTimeOutError' }), 'search'],
    [Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }), 'socket'],
  ])('names the dependency of %s', (error, dependency) => {
    expect(unavailableCause(error)?.dependency).toBe(dependency);
  });

  it('looks through causes (a wrapped time-out)', () => {
    expect(unavailableCause(new Error('insert failed', { cause: new Error('Query read timeout') }))).toEqual({
      dependency: 'database',
      reason: 'Query read timeout',
    });
  });

  it.each([new Error('boom'), Object.assign(new Error('duplicate key'), { code: '23505' }), null, 'text'])(
    'leaves any other error alone: %s',
    (error) => {
      expect(unavailableCause(error)).toBeUndefined();
    },
  );

  it('makes a deadline a 503 with Retry-After that names nothing to the client and everything in its message', () => {
    const error = new DeadlineExceededError('cart', 1987);
    expect(error).toMatchObject({ kind: 'unavailable', fields: { server: 'temporarily unavailable' }, headers: { 'Retry-After': '1' } });
    expect(error.message).toBe('cart: no answer within 1987 ms');
  });
});
