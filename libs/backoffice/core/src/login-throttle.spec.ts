import { LoginRateLimitedError } from './backoffice.errors';
import { LoginThrottle } from './login-throttle';

describe('LoginThrottle', () => {
  let now = 0;
  const throttle = () => new LoginThrottle({ perAddress: 3, perUser: 5, windowMs: 60_000, now: () => now });
  beforeEach(() => void (now = 1_000_000));

  it('refuses an address after its failures, telling how long to wait, and lets it in again after the window', () => {
    const t = throttle();
    for (let i = 0; i < 3; i++) {
      t.check('10.0.0.1', `guess${i}`);
      t.failed('10.0.0.1', `guess${i}`);
    }
    now += 15_000;
    const error = (() => {
      try {
        t.check('10.0.0.1', 'erp');
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(LoginRateLimitedError);
    expect((error as LoginRateLimitedError).retryAfterSeconds).toBe(45);
    expect(() => t.check('10.0.0.2', 'erp')).not.toThrow();
    now += 45_000;
    expect(() => t.check('10.0.0.1', 'erp')).not.toThrow();
  });

  it('refuses a user name after failures from many addresses, known user or not, except where it logged in before', () => {
    const t = throttle();
    t.succeeded('10.0.0.9', 'erp');
    for (let i = 0; i < 5; i++) {
      t.failed(`10.1.0.${i}`, 'erp');
      t.failed(`10.1.0.${i}`, 'ghost');
    }
    expect(() => t.check('10.2.0.1', 'erp')).toThrow(LoginRateLimitedError);
    expect(() => t.check('10.2.0.1', 'ghost')).toThrow(LoginRateLimitedError);
    // The ERP's own address keeps working while a stranger guesses its password.
    expect(() => t.check('10.0.0.9', 'erp')).not.toThrow();
  });

  it('forgets the oldest keys beyond its bound', () => {
    const t = new LoginThrottle({ perAddress: 1, perUser: 1000, maxTracked: 2, now: () => now });
    t.failed('a', 'u1');
    t.failed('b', 'u2');
    t.failed('c', 'u3');
    expect(() => t.check('a', 'x')).not.toThrow();
    expect(() => t.check('c', 'x')).toThrow(LoginRateLimitedError);
  });
});
