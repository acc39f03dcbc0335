// A load generator that offers a fixed rate evenly: for issue 7's "p99 at 50 connections while serving ≥ 3,000
// requests/s". autocannon's `overallRate` gives each connection rate ÷ connections requests a second and lets
// it send them back to back at the start of every second (a burst at full speed, then silence), and records
// each answer with a coordinated-omission correction of an expected interval of ceil(1000 ÷ that rate) ms
// (1 ms for 60 a second): an answer of n ms is counted n times, from n down to 1 ms. So its p99 "at 3,000/s"
// was the p99 of a burst at saturation, weighted towards the slow answers.
//
// Here connection c sends its k-th request at start + (k × connections + c) ÷ rate: the requests of all
// connections are spread evenly over time. A request goes out at its moment, or as soon as its connection's
// previous answer is in when that was later. Two latencies are kept per request: from sending to the whole
// answer (the server's), and from the moment it was due (what a client offering that rate over those
// connections waits, queueing on a busy connection included).
import { connect, type Socket } from 'node:net';

export interface PacedLoadOptions {
  url: string;
  connections: number;
  /** Requests a second offered, over all connections. */
  rate: number;
  seconds: number;
  method?: 'GET' | 'POST';
  /** Headers of the i-th request (e.g. a session token). */
  headers?: (i: number) => Record<string, string>;
  /** Requests slower than this from sending (ms) are listed in `slow` with their moments (default 25). */
  slowMs?: number;
}

/** A request slower than `slowMs` from sending: when it was sent (epoch ms) and how long its answer took. */
export interface SlowRequest {
  sentAt: number;
  ms: number;
  /** Its index in the run (0 is the first request due). */
  index: number;
}

export interface PacedLoadResult {
  requests: number;
  /** Answers a second over the run. */
  rps: number;
  /** ms from sending to the whole answer. */
  p50: number;
  p99: number;
  /** ms from the moment the request was due (includes waiting for its connection). */
  p99FromDue: number;
  /** p99 from sending of the requests due after the first second. */
  p99AfterFirstSecond: number;
  non2xx: number;
  slow: SlowRequest[];
  /** The generator's own lateness: ms its timers fired after a request's due moment, on a free connection (p99, max). */
  timerLateP99: number;
  timerLateMax: number;
}

const percentile = (sorted: Float64Array, p: number): number =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

const nowMs = () => performance.now();

/** One keep-alive connection: one request at a time, answers read by Content-Length. */
class Connection {
  private buffer: Buffer = Buffer.alloc(0);
  private waiting: ((status: number) => void) | undefined;
  private failed: ((error: Error) => void) | undefined;

  private constructor(private readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (error) => this.failed?.(error));
    socket.on('close', () => this.failed?.(new Error('connection closed by the server')));
  }

  static open(host: string, port: number): Promise<Connection> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port }, () => resolve(new Connection(socket)));
      socket.once('error', reject);
    });
  }

  send(request: Buffer): Promise<number> {
    return new Promise((resolve, reject) => {
      this.waiting = resolve;
      this.failed = reject;
      this.socket.write(request);
    });
  }

  close(): void {
    this.failed = undefined;
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const headEnd = this.buffer.indexOf('\r\n\r\n');
    if (headEnd < 0) return;
    const head = this.buffer.toString('latin1', 0, headEnd);
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    if (!length) {
      this.failed?.(new Error(`an answer without Content-Length: ${head.split('\r\n')[0]}`));
      return;
    }
    const end = headEnd + 4 + Number(length[1]);
    if (this.buffer.length < end) return;
    this.buffer = this.buffer.subarray(end);
    const resolve = this.waiting;
    this.waiting = undefined;
    resolve?.(Number(head.slice(9, 12)));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function pacedLoad(options: PacedLoadOptions): Promise<PacedLoadResult> {
  const url = new URL(options.url);
  const method = options.method ?? 'GET';
  const path = `${url.pathname}${url.search}`;
  const requestBytes = (i: number): Buffer => {
    const headers = {
      host: url.host,
      connection: 'keep-alive',
      ...(method === 'POST' ? { 'content-length': '0' } : {}),
      ...options.headers?.(i),
    };
    const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
    return Buffer.from(`${method} ${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  };
  const connections = await Promise.all(
    Array.from({ length: options.connections }, () => Connection.open(url.hostname, Number(url.port || 80))),
  );
  const total = Math.floor(options.rate * options.seconds);
  const fromSend = new Float64Array(total);
  const fromDue = new Float64Array(total);
  const afterFirst = new Float64Array(total);
  let afterFirstDone = 0;
  let done = 0;
  let non2xx = 0;
  const slowMs = options.slowMs ?? 25;
  const slow: SlowRequest[] = [];
  const timerLate: number[] = [];
  const epoch = performance.timeOrigin;
  const start = nowMs() + 50;
  try {
    await Promise.all(
      connections.map(async (connection, c) => {
        for (let i = c; i < total; i += options.connections) {
          const due = start + (i * 1000) / options.rate;
          const wait = due - nowMs();
          if (wait > 1) await sleep(wait);
          const sent = nowMs();
          if (wait > 0) timerLate.push(sent - due);
          const status = await connection.send(requestBytes(i));
          const answered = nowMs();
          if (status < 200 || status > 299) non2xx++;
          fromSend[done] = answered - sent;
          fromDue[done] = answered - Math.min(due, sent);
          if (i >= options.rate) afterFirst[afterFirstDone++] = answered - sent;
          if (answered - sent >= slowMs) slow.push({ sentAt: epoch + sent, ms: answered - sent, index: i });
          done++;
        }
      }),
    );
  } finally {
    for (const connection of connections) connection.close();
  }
  const elapsedS = (nowMs() - start) / 1000;
  const sortedSend = fromSend.subarray(0, done).sort();
  const sortedDue = fromDue.subarray(0, done).sort();
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return {
    requests: done,
    rps: done / elapsedS,
    p50: round(percentile(sortedSend, 50)),
    p99: round(percentile(sortedSend, 99)),
    p99FromDue: round(percentile(sortedDue, 99)),
    p99AfterFirstSecond: round(percentile(afterFirst.subarray(0, afterFirstDone).sort(), 99)),
    non2xx,
    slow,
    timerLateP99: round(percentile(Float64Array.from(timerLate).sort(), 99)),
    timerLateMax: round(timerLate.reduce((a, b) => Math.max(a, b), 0)),
  };
}
