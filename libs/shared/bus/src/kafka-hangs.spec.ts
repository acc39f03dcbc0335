import { HandlerHangs, eventKey } from './kafka-hangs';

describe('HandlerHangs (a Kafka handler that times out again and again; decision 85)', () => {
  const a = eventKey('t', 0, '5');
  const b = eventKey('t', 1, '5');

  it('dead-letters an event at its limit-th time-out, counting each event on its own, then forgets it', () => {
    const hangs = new HandlerHangs(3);
    expect(hangs.timedOut(a)).toEqual({ count: 1, deadLetter: false });
    expect(hangs.timedOut(b)).toEqual({ count: 1, deadLetter: false });
    expect(hangs.timedOut(a)).toEqual({ count: 2, deadLetter: false });
    expect(hangs.timedOut(a)).toEqual({ count: 3, deadLetter: true });
    // Forgotten once dead-lettered: the same offset met again (a replay) starts afresh.
    expect(hangs.timedOut(a)).toEqual({ count: 1, deadLetter: false });
    expect(hangs.timedOut(b)).toEqual({ count: 2, deadLetter: false });
  });

  it('dead-letters at the first time-out with a limit of 1, and refuses a limit below 1', () => {
    expect(new HandlerHangs(1).timedOut(a)).toEqual({ count: 1, deadLetter: true });
    expect(() => new HandlerHangs(0)).toThrow(/whole number ≥ 1/);
    expect(() => new HandlerHangs(1.5)).toThrow(/whole number ≥ 1/);
  });

  it('forgets the time-outs of an event once it settled', () => {
    const hangs = new HandlerHangs(2);
    hangs.timedOut(a);
    hangs.settled('t', 0, '5');
    expect(hangs.timedOut(a)).toEqual({ count: 1, deadLetter: false });
    // Again, with another event's time-out counted: that one's count stays.
    hangs.timedOut(b);
    hangs.settled('t', 0, '5');
    expect(hangs.timedOut(a)).toEqual({ count: 1, deadLetter: false });
    expect(hangs.timedOut(b)).toEqual({ count: 2, deadLetter: true });
  });

  it('remembers a timed-out run by its first event once, to be handled one by one', () => {
    const hangs = new HandlerHangs(3);
    expect(hangs.takeTimedOutRun(a)).toBe(false);
    hangs.runTimedOut(a);
    expect(hangs.takeTimedOutRun(b)).toBe(false);
    expect(hangs.takeTimedOutRun(a)).toBe(true);
    expect(hangs.takeTimedOutRun(a)).toBe(false);
    // An event that timed out on its own begins its next run one by one too (not once dead-lettered).
    hangs.timedOut(b);
    expect(hangs.takeTimedOutRun(b)).toBe(true);
    const once = new HandlerHangs(1);
    once.timedOut(a);
    expect(once.takeTimedOutRun(a)).toBe(false);
  });

  it('backs restarts off while no handler settles: 1 s, 2 s, 4 s … at most 60 s, from 1 s again after one settled', () => {
    const hangs = new HandlerHangs(3);
    const delays = Array.from({ length: 8 }, () => hangs.nextRestartDelayMs());
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000]);
    hangs.settled('t', 0, '5');
    expect(hangs.nextRestartDelayMs()).toBe(1000);
  });

  it('remembers at most a thousand events, forgetting the oldest', () => {
    const hangs = new HandlerHangs(2);
    hangs.timedOut(eventKey('t', 0, '0'));
    for (let i = 1; i <= 1000; i++) hangs.timedOut(eventKey('t', 0, String(i)));
    expect(hangs.timedOut(eventKey('t', 0, '0'))).toEqual({ count: 1, deadLetter: false });
    expect(hangs.timedOut(eventKey('t', 0, '1000'))).toEqual({ count: 2, deadLetter: true });
  });
});
