import type { Logger } from '@commerce/shared-logging';

/** Work run after an answer has gone: failures are logged; `drain` waits for what is still running (shutdown, tests). */
export function createBackgroundRunner(logger?: Logger) {
  const running = new Set<Promise<void>>();
  return {
    run(work: () => Promise<void>): void {
      // setImmediate: the work starts once the current request has had its turn.
      const task: Promise<void> = new Promise<void>((r) => setImmediate(r))
        .then(work)
        .catch((err: unknown) => logger?.error({ err }, 'account: background work failed'))
        .finally(() => running.delete(task));
      running.add(task);
    },
    async drain(): Promise<void> {
      while (running.size > 0) await Promise.all([...running]);
    },
  };
}
