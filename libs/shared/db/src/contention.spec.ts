import { contentionRetries, isContention, retryContended } from './contention';

const pgError = (code: string) => Object.assign(new Error(`pg ${code}`), { code });

describe('retryContended', () => {
  const noWait = { sleep: async () => undefined, random: () => 0.5 };

  it('runs a deadlocked or unserializable transaction again until it succeeds', async () => {
    const failures = [pgError('40P01'), pgError('40001')];
    let runs = 0;
    const result = await retryContended(async () => {
      runs++;
      const failure = failures.shift();
      if (failure) throw failure;
      return 'done';
    }, noWait);
    expect(result).toBe('done');
    expect(runs).toBe(3);
  });

  it('counts the retries by SQLSTATE (the db_contention_retries_total metric)', async () => {
    const before = contentionRetries().get('40P01') ?? 0;
    let runs = 0;
    await retryContended(async () => {
      if (++runs < 3) throw pgError('40P01');
    }, noWait);
    expect(contentionRetries().get('40P01')).toBe(before + 2);
  });

  it('lets every other error through at once', async () => {
    for (const error of [pgError('23505'), pgError('57014'), new Error('boom'), null, 'text']) {
      let runs = 0;
      await expect(
        retryContended(async () => {
          runs++;
          throw error;
        }, noWait),
      ).rejects.toBe(error);
      expect(runs).toBe(1);
    }
  });

  it('is bounded: after the last run the contention error is thrown', async () => {
    let runs = 0;
    const deadlock = pgError('40P01');
    await expect(
      retryContended(
        async () => {
          runs++;
          throw deadlock;
        },
        { ...noWait, attempts: 4 },
      ),
    ).rejects.toBe(deadlock);
    expect(runs).toBe(4);
  });

  it('waits a jittered, doubling, capped backoff between runs', async () => {
    const delays: number[] = [];
    const told: number[] = [];
    await expect(
      retryContended(
        async () => {
          throw pgError('40001');
        },
        {
          attempts: 7,
          baseDelayMs: 10,
          maxDelayMs: 100,
          random: () => 0.999,
          sleep: async (ms) => void delays.push(ms),
          onRetry: (_e, attempt) => void told.push(attempt),
        },
      ),
    ).rejects.toMatchObject({ code: '40001' });
    // Ceilings 10, 20, 40, 80, 100, 100; random just under 1 gives just under each.
    expect(delays).toEqual([9, 19, 39, 79, 99, 99]);
    expect(told).toEqual([1, 2, 3, 4, 5, 6]);
    const jittered: number[] = [];
    let r = 0;
    await retryContended(
      async () => {
        if (jittered.length < 3) throw pgError('40P01');
        return undefined;
      },
      { baseDelayMs: 100, random: () => [0, 0.25, 0.5][r++]!, sleep: async (ms) => void jittered.push(ms) },
    );
    expect(jittered).toEqual([0, 50, 200 * 0.5]);
  });

  it('isContention knows the two SQLSTATEs only', () => {
    expect(isContention(pgError('40P01'))).toBe(true);
    expect(isContention(pgError('40001'))).toBe(true);
    expect(isContention(pgError('40000'))).toBe(false);
    expect(isContention(undefined)).toBe(false);
  });
});
