import { writeSync } from 'node:fs';
import { stdoutDestination, type Logger } from '@commerce/shared-logging';

export interface RunServiceOptions {
  logger?: Logger;
  /**
   * How long a stop may take before the process exits anyway (code 1), default 20 s: within
   * Kubernetes' 30 s grace period after the 5 s preStop pause, whatever a closer or the log does.
   */
  shutdownGraceMs?: number;
}

const DEFAULT_SHUTDOWN_GRACE_MS = 20_000;
// Time given to the log backlog to drain before exit, within the grace period.
const LOG_FLUSH_MS = 1000;

interface StartupFailureLike {
  name?: unknown;
  message?: unknown;
  startupFailure?: unknown;
}

/**
 * Failures an operator fixes outside the code (a bad variable, an engine that does not answer):
 * their message says it all, so a stack trace would only hide it.
 */
export function isStartupFailure(err: unknown): err is Error {
  if (err === null || typeof err !== 'object') return false;
  const { name, message, startupFailure } = err as StartupFailureLike;
  if (typeof message !== 'string' || message.trim() === '' || message.includes('\n')) return false;
  return name === 'ConfigError' || startupFailure === true || (typeof name === 'string' && name.endsWith('UnavailableError'));
}

// Synchronous, so the line is out before process.exit(); a stderr nobody reads (EPIPE, EAGAIN)
// must not turn a clean message into a crash.
const printError = (line: string): void => {
  try {
    writeSync(2, `${line}\n`);
  } catch {
    // nowhere left to say it
  }
};

/**
 * The composition root's last line: start the service, stop it once on SIGTERM/SIGINT.
 * A start-up failure is one line on stderr and exit code 1.
 */
export function runService(name: string, start: () => Promise<{ close(): Promise<void> }>, options: RunServiceOptions = {}): void {
  const { logger, shutdownGraceMs = DEFAULT_SHUTDOWN_GRACE_MS } = options;
  let running: { close(): Promise<void> } | undefined;
  let stopRequested = false;

  const exit = async (code: number): Promise<never> => {
    await stdoutDestination().flush(Math.min(LOG_FLUSH_MS, shutdownGraceMs));
    process.exit(code);
  };

  const stop = async (): Promise<void> => {
    if (!running) return; // start() still pending: it stops once it resolves
    try {
      await running.close();
      logger?.info(`${name} stopped`);
      await exit(0);
    } catch (err) {
      logger?.error({ err }, `${name} did not stop cleanly`);
      if (!logger) printError(`${name}: stop failed: ${err instanceof Error ? err.message : String(err)}`);
      await exit(1);
    }
  };

  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopRequested) {
      logger?.warn({ signal }, 'second signal: exiting at once');
      process.exit(1);
    }
    stopRequested = true;
    logger?.info({ signal }, `${name} stopping`);
    // Unref'd: it must not keep alive a process that is done, only end one that is not.
    setTimeout(() => {
      printError(`${name}: not stopped after ${shutdownGraceMs} ms; exiting`);
      process.exit(1);
    }, shutdownGraceMs).unref();
    void stop();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  start().then(
    (started) => {
      running = started;
      if (stopRequested) void stop();
    },
    (err: unknown) => {
      if (isStartupFailure(err)) {
        printError(`${name}: ${err.message}`);
      } else {
        const message = err instanceof Error ? err.message : String(err);
        printError(`${name}: ${message.split('\n')[0]}`);
        if (process.env['LOG_LEVEL'] === 'debug' && err instanceof Error && err.stack) printError(err.stack);
      }
      process.exit(1);
    },
  );
}
