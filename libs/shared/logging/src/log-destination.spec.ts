import { Writable } from 'node:stream';
import { createLogger } from './logger';
import { createLogDestination, droppedLogLines } from './log-destination';

/** A reader that never reads: every chunk after the first waits in the stream forever. */
const stalled = () => new Writable({ write: () => undefined });

/** A reader that went away: the first write fails with EPIPE, as on a closed pipe. */
const brokenPipe = () =>
  new Writable({ write: (_chunk, _encoding, callback) => callback(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' })) });

describe('a log destination', () => {
  it('when the reader does not keep up, holds a bounded backlog and drops and counts the lines beyond it', async () => {
    const out = stalled();
    const logger = createLogger('test', 'info', createLogDestination(out, { maxBacklogBytes: 4096 }));
    const before = droppedLogLines();
    for (let turn = 0; turn < 4; turn++) {
      for (let i = 0; i < 50; i++) logger.info({ i, padding: 'x'.repeat(100) }, 'a line');
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(out.writableLength).toBeGreaterThan(4096);
    expect(out.writableLength).toBeLessThan(4096 + 1024);
    expect(droppedLogLines() - before).toBeGreaterThan(150);
  });

  it("writes a turn's lines as one write at the turn's end, in order, and each turn's apart", async () => {
    const writes: string[] = [];
    const out = new Writable({ write: (chunk, _e, callback) => (writes.push(String(chunk)), callback()) });
    const destination = createLogDestination(out);
    destination.write('one\n');
    destination.write('two\n');
    destination.write('three\n');
    expect(writes).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual(['one\ntwo\nthree\n']);
    destination.write('four\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual(['one\ntwo\nthree\n', 'four\n']);
  });

  it('hands the lines still held to the stream when the process exits', () => {
    const writes: string[] = [];
    const out = new Writable({ write: (chunk, _e, callback) => (writes.push(String(chunk)), callback()) });
    createLogDestination(out).write('the last line\n');
    process.emit('exit', 0);
    expect(writes).toEqual(['the last line\n']);
  });

  it('when the reader went away (EPIPE), neither throws nor emits an unhandled error, and drops what follows', async () => {
    const out = brokenPipe();
    const logger = createLogger('test', 'info', createLogDestination(out));
    logger.info('the line that meets the closed pipe');
    await new Promise((resolve) => setImmediate(resolve));
    expect(out.destroyed).toBe(true);
    const before = droppedLogLines();
    expect(() => {
      for (let i = 0; i < 10; i++) logger.info({ i }, 'after');
    }).not.toThrow();
    expect(droppedLogLines() - before).toBe(10);
  });

  it('flush waits for the backlog, but no longer than asked', async () => {
    const destination = createLogDestination(stalled());
    destination.write('first\n');
    destination.write('second, waiting behind the first\n');
    const started = Date.now();
    await destination.flush(100);
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    expect(Date.now() - started).toBeLessThan(1000);

    const lines: string[] = [];
    const healthy = createLogDestination(new Writable({ write: (chunk, _e, callback) => (lines.push(String(chunk)), callback()) }));
    healthy.write('out at once\n');
    await healthy.flush(5000);
    expect(lines).toEqual(['out at once\n']);
  });
});
