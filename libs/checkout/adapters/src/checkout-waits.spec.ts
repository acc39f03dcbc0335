import type { CheckoutDeps } from '@commerce/checkout-core';
import { checkoutWaits, timedStages } from './checkout-waits';

type Stages = Pick<CheckoutDeps, 'sessions' | 'cart' | 'catalog' | 'newSessions'>;

const later = <T>(value: T, ms: number) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

/** `checkout_wait_seconds{stage}`'s count and sum, from the registry's text. */
async function stage(registry: ReturnType<typeof checkoutWaits>['registry'], name: string) {
  const text = await registry.metrics();
  const value = (part: string) =>
    Number(new RegExp(`^checkout_wait_seconds_${part}\\{stage="${name}"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  return { count: value('count'), sum: value('sum') };
}

describe('checkout waits (checkout_wait_seconds)', () => {
  const deps = (): Stages =>
    ({
      sessions: {
        get: () => later(null, 5),
        getWithVersion: () => later({ session: null, selectionVersion: null }, 20),
        set: () => later(undefined, 1),
        selectionChanged: () => Promise.reject(new Error('redis gone')),
      },
      cart: { createSelection: () => later({ id: 's1' }, 1), changeSelection: () => later({ id: 's1' }, 1) },
      catalog: { getProduct: () => later(null, 1) },
      newSessions: { admit: () => later(0, 1) },
    }) as unknown as Stages;

  it('times each stage from asking to its answer, failures included, and answers what the stage answered', async () => {
    const { registry, timed } = checkoutWaits();
    const timedDeps = timedStages(deps(), timed);

    await expect(timedDeps.sessions.getWithVersion!('t')).resolves.toEqual({ session: null, selectionVersion: null });
    await timedDeps.sessions.set('t', { country: null, state: null, language: 'en', createdAt: '' });
    await expect(timedDeps.sessions.selectionChanged('s1')).rejects.toThrow('redis gone');
    await timedDeps.cart.createSelection({ currency: 'SEK', country: 'SE', language: 'en' });
    await timedDeps.newSessions!.admit('127.0.0.1');

    const read = await stage(registry, 'session_read');
    expect(read.count).toBe(1);
    expect(read.sum).toBeGreaterThanOrEqual(0.015);
    expect(read.sum).toBeLessThan(1);
    expect(await stage(registry, 'session_write')).toMatchObject({ count: 1 });
    expect(await stage(registry, 'version_raise')).toMatchObject({ count: 1 });
    expect(await stage(registry, 'cart_create')).toMatchObject({ count: 1 });
    expect(await stage(registry, 'session_limit')).toMatchObject({ count: 1 });
    expect(await stage(registry, 'cart_change')).toMatchObject({ count: 0 });
  });

  it('leaves a limit out when there is none', () => {
    const { timed } = checkoutWaits();
    const { newSessions: _none, ...rest } = deps();
    expect(timedStages(rest, timed)).not.toHaveProperty('newSessions');
  });
});
