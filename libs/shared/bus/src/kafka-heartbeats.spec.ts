import { HandlerTimeoutError, withHeartbeats } from './kafka-heartbeats';

/** A handler that runs until `finish` (or `fail`) is called. */
function pendingWork() {
  let finish!: () => void;
  let fail!: (error: Error) => void;
  const done = new Promise<string>((resolve, reject) => {
    finish = () => resolve('result');
    fail = reject;
  });
  return { work: () => done, finish: () => finish(), fail: (error: Error) => fail(error) };
}

const protocolError = (type: string) => Object.assign(new Error(type), { type });

/** A pending handler run under heartbeats every second. */
function running(
  heartbeat: () => Promise<void>,
  {
    stopping = () => false,
    onFailure = () => undefined,
    timeoutMs,
  }: { stopping?: () => boolean; onFailure?: (error: unknown) => void; timeoutMs?: number } = {},
) {
  const beats = withHeartbeats(heartbeat, 1000, stopping, onFailure, timeoutMs);
  const handler = pendingWork();
  return { beats, handler, result: beats.during(handler.work) };
}

describe('withHeartbeats (a Kafka handler heartbeats while it runs)', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('heartbeats every interval while the handler runs, and not after it settled', async () => {
    const heartbeat = jest.fn(async () => undefined);
    const { beats, handler, result } = running(heartbeat);
    await jest.advanceTimersByTimeAsync(3500);
    expect(heartbeat).toHaveBeenCalledTimes(3);
    handler.finish();
    await expect(result).resolves.toBe('result');
    await jest.advanceTimersByTimeAsync(5000);
    expect(heartbeat).toHaveBeenCalledTimes(3);
    expect(() => beats.throwIfLost()).not.toThrow();
  });

  it('stops the heartbeats when the handler throws, and passes its error on', async () => {
    const heartbeat = jest.fn(async () => undefined);
    const { beats, handler, result } = running(heartbeat);
    await jest.advanceTimersByTimeAsync(1500);
    handler.fail(new Error('handler broke'));
    await expect(result).rejects.toThrow('handler broke');
    await jest.advanceTimersByTimeAsync(5000);
    expect(heartbeat).toHaveBeenCalledTimes(1);
    expect(() => beats.throwIfLost(new Error('handler broke'))).not.toThrow();
  });

  it('tells a failed heartbeat and goes on; a rebalance stops the beats and is thrown once the handler is done', async () => {
    const failures: unknown[] = [];
    const outcomes = [protocolError('REQUEST_TIMED_OUT'), undefined, protocolError('REBALANCE_IN_PROGRESS')];
    const heartbeat = jest.fn(async () => {
      const outcome = outcomes.shift();
      if (outcome) throw outcome;
    });
    const { beats, handler, result } = running(heartbeat, { onFailure: (error) => failures.push(error) });
    await jest.advanceTimersByTimeAsync(6500);
    // The timeout was told and the beats went on; after the rebalance none was sent.
    expect(failures).toEqual([expect.objectContaining({ type: 'REQUEST_TIMED_OUT' })]);
    expect(heartbeat).toHaveBeenCalledTimes(3);
    handler.finish();
    await expect(result).resolves.toBe('result');
    expect(() => beats.throwIfLost()).toThrow('REBALANCE_IN_PROGRESS');
  });

  it('throws a membership error it is given (a refused commit), not another error', () => {
    const { beats } = running(async () => undefined);
    expect(() => beats.throwIfLost(protocolError('ILLEGAL_GENERATION'))).toThrow('ILLEGAL_GENERATION');
    expect(() => beats.throwIfLost(protocolError('UNKNOWN_MEMBER_ID'))).toThrow('UNKNOWN_MEMBER_ID');
    expect(() => beats.throwIfLost(new Error('handler broke'))).not.toThrow();
  });

  it('sends none once the subscription stops', async () => {
    let stopping = false;
    const heartbeat = jest.fn(async () => undefined);
    const { handler, result } = running(heartbeat, { stopping: () => stopping });
    await jest.advanceTimersByTimeAsync(1500);
    stopping = true;
    await jest.advanceTimersByTimeAsync(5000);
    expect(heartbeat).toHaveBeenCalledTimes(1);
    handler.finish();
    await result;
  });

  it('waits for a heartbeat in flight before it returns, so its failure is never left unhandled', async () => {
    let answer!: (error?: Error) => void;
    const heartbeat = jest.fn(() => new Promise<void>((resolve, reject) => (answer = (error) => (error ? reject(error) : resolve()))));
    const { beats, handler, result } = running(heartbeat);
    await jest.advanceTimersByTimeAsync(1000);
    handler.finish();
    let settled = false;
    void result.then(() => (settled = true));
    await jest.advanceTimersByTimeAsync(0);
    expect(settled).toBe(false);
    answer(protocolError('REBALANCE_IN_PROGRESS'));
    await expect(result).resolves.toBe('result');
    expect(() => beats.throwIfLost()).toThrow('REBALANCE_IN_PROGRESS');
  });

  it('gives a handler up past its time limit: rejects with HandlerTimeoutError, stops the beats, drops a late result', async () => {
    const heartbeat = jest.fn(async () => undefined);
    const { beats, handler, result } = running(heartbeat, { timeoutMs: 5000 });
    const outcome = result.then(
      () => 'resolved',
      (error: unknown) => error,
    );
    await jest.advanceTimersByTimeAsync(4500);
    expect(heartbeat).toHaveBeenCalledTimes(4);
    await jest.advanceTimersByTimeAsync(1000);
    const error = await outcome;
    expect(error).toBeInstanceOf(HandlerTimeoutError);
    expect(error).toMatchObject({ retriable: false, timeoutMs: 5000 });
    // Thrown from now on, whatever the caller caught; no beat after the limit.
    expect(() => beats.throwIfLost()).toThrow(HandlerTimeoutError);
    expect(() => beats.throwIfLost(new Error('handler broke'))).toThrow(HandlerTimeoutError);
    const beatsAtTheLimit = heartbeat.mock.calls.length;
    await jest.advanceTimersByTimeAsync(5000);
    expect(heartbeat).toHaveBeenCalledTimes(beatsAtTheLimit);
    // The handler failing late is neither reported nor unhandled.
    handler.fail(new Error('too late'));
    await jest.advanceTimersByTimeAsync(0);
  });

  it('leaves a handler that settles within its time limit alone', async () => {
    const { beats, handler, result } = running(async () => undefined, { timeoutMs: 5000 });
    await jest.advanceTimersByTimeAsync(4900);
    handler.finish();
    await expect(result).resolves.toBe('result');
    await jest.advanceTimersByTimeAsync(10_000);
    expect(() => beats.throwIfLost()).not.toThrow();
  });
});
