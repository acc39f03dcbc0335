/** One request of a fault run: what was asked, when, how long it took and how it was answered. */
export interface Sample {
  op: string;
  /** `Date.now()` when it was sent. */
  at: number;
  ms: number;
  /** 0: no answer (the connection failed or the client gave up after `CLIENT_TIMEOUT_MS`). */
  status: number;
  retryAfter: string | null;
  body: Record<string, any> | undefined;
}

/** The load's own limit: a request the edge has not answered in this time is recorded as unanswered (status 0). */
export const CLIENT_TIMEOUT_MS = 60_000;

/** Requests over loopback, each recorded. */
export class Recorder {
  readonly samples: Sample[] = [];

  async call(op: string, url: string, init: RequestInit = {}): Promise<Sample> {
    const at = Date.now();
    const started = performance.now();
    let sample: Sample;
    try {
      const res = await fetch(url, { ...init, signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) });
      const text = await res.text();
      let body: Record<string, any> | undefined;
      try {
        body = text ? (JSON.parse(text) as Record<string, any>) : undefined;
      } catch {
        body = { text };
      }
      sample = { op, at, ms: performance.now() - started, status: res.status, retryAfter: res.headers.get('retry-after'), body };
    } catch {
      sample = { op, at, ms: performance.now() - started, status: 0, retryAfter: null, body: undefined };
    }
    this.samples.push(sample);
    return sample;
  }

  /** The samples sent in [from, to). */
  between(from: number, to: number): Sample[] {
    return this.samples.filter((s) => s.at >= from && s.at < to);
  }
}

/** `workers` loops of `step` until `durationMs` has passed (each loop waits for its step: a bounded, closed load). */
export async function loadFor(
  durationMs: number,
  workers: number,
  step: (worker: number) => Promise<unknown>,
  pauseMs = 50,
): Promise<void> {
  const until = Date.now() + durationMs;
  await Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      while (Date.now() < until) {
        await step(worker);
        await new Promise((r) => setTimeout(r, pauseMs));
      }
    }),
  );
}

/** A load that runs until stopped (the kill round's background traffic). */
export function loadUntilStopped(workers: number, step: (worker: number) => Promise<unknown>, pauseMs = 100): { stop(): Promise<void> } {
  let stopped = false;
  const running = Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      while (!stopped) {
        await step(worker);
        await new Promise((r) => setTimeout(r, pauseMs));
      }
    }),
  );
  return {
    stop: async () => {
      stopped = true;
      await running;
    },
  };
}

export const maxMs = (samples: Sample[]): number => samples.reduce((m, s) => Math.max(m, s.ms), 0);
