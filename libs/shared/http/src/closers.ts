/** Resources a start-up acquired, released newest first: at shutdown, or when the start-up fails midway. */
export class Closers {
  private readonly list: Array<() => Promise<void>> = [];

  add(close: () => Promise<void>): void {
    this.list.unshift(close);
  }

  /** In release order, for `serve`'s onShutdown. */
  get all(): Array<() => Promise<void>> {
    return [...this.list];
  }

  async closeAll(): Promise<void> {
    for (const close of this.list) await close().catch(() => undefined);
  }
}

/** Runs a start-up; if it throws, closes whatever it had acquired so far and rethrows. */
export async function startWithClosers<T>(start: (closers: Closers) => Promise<T>): Promise<T> {
  const closers = new Closers();
  try {
    return await start(closers);
  } catch (error) {
    await closers.closeAll();
    throw error;
  }
}
