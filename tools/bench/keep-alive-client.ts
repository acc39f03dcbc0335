// A benchmark's visitor's HTTP/1.1 client (issue 28): one keep-alive connection to one origin on `node:net`, one
// request at a time (no pipelining: a visitor waits for each answer), its answers read by http-parser-js (the parser
// autocannon drives its connections with: content-length, chunked and read-to-close bodies, answers split across
// reads). The load generator shares the box's two cores with what it measures; undici's `request` spent ~0.1 ms of
// them a request (its dispatcher chain, a body stream, header objects), this the socket's write and read and a
// parse. A request's bytes are the caller's string (built once per kind where it can be); nothing is retried.
import { connect, type Socket } from 'node:net';
import { HTTPParser } from 'http-parser-js';

export interface Answer {
  status: number;
  /** The answer's headers as received: name, value, name, value… */
  headers: string[];
  body: Buffer;
}

/** A header of an answer by its name, any case; the first when repeated. */
export function headerOf(answer: Answer, name: string): string | undefined {
  for (let i = 0; i < answer.headers.length; i += 2) if (answer.headers[i]!.toLowerCase() === name) return answer.headers[i + 1];
  return undefined;
}

/** Whether a body is a JSON object's text, told by its first and last bytes (an envelope, not parsed). */
export const isJsonObject = (body: Buffer): boolean => body.length >= 2 && body[0] === 0x7b && body[body.length - 1] === 0x7d;

/**
 * A request's text: the request line, `host`, the caller's headers, `content-length` when it has a body. Build it
 * once for a request sent again and again.
 */
export function requestText(method: string, path: string, host: string, headers: Record<string, string> = {}, body?: string): string {
  let text = `${method} ${path} HTTP/1.1\r\nhost: ${host}\r\n`;
  for (const name in headers) text += `${name}: ${headers[name]}\r\n`;
  if (body !== undefined) return `${text}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  return `${text}${method === 'GET' ? '' : 'content-length: 0\r\n'}\r\n`;
}

interface Waiting {
  resolve(answer: Answer): void;
  reject(error: Error): void;
  status: number;
  headers: string[];
  chunks: Buffer[];
  keepAlive: boolean;
}

/**
 * One keep-alive connection to `http://host:port`, opened at the first request and again after the server closed
 * it between answers. A request fails (never hangs) when the connection closes or errs before its whole answer,
 * when the answer is not HTTP, or after `timeoutMs` without a byte.
 */
export class KeepAliveConnection {
  readonly host: string;
  private socket: Socket | undefined;
  private waiting: Waiting | undefined;

  constructor(
    private readonly hostname: string,
    private readonly port: number,
    private readonly timeoutMs = 60_000,
  ) {
    this.host = `${hostname}:${port}`;
  }

  static to(origin: string, timeoutMs?: number): KeepAliveConnection {
    const url = new URL(origin);
    return new KeepAliveConnection(url.hostname, Number(url.port || 80), timeoutMs);
  }

  /** Sends a request's whole text (`requestText`) and resolves with its answer. */
  send(request: string): Promise<Answer> {
    if (this.waiting) return Promise.reject(new Error(`${this.host}: a request is already waiting for its answer`));
    return new Promise<Answer>((resolve, reject) => {
      this.waiting = { resolve, reject, status: 0, headers: [], chunks: [], keepAlive: true };
      (this.socket ?? this.open()).write(request);
    });
  }

  /** Closes the connection; a request still waiting fails. */
  close(): void {
    this.socket?.destroy();
  }

  private open(): Socket {
    const socket = connect({ host: this.hostname, port: this.port, noDelay: true });
    const parser = new HTTPParser(HTTPParser.RESPONSE);
    parser[HTTPParser.kOnHeadersComplete] = (info) => {
      // An answer no request waits for (more answers than requests, in the read that completed one): the connection
      // is out of step, and the next request's answer could be this one. It is dropped.
      if (!this.waiting) return this.fail(socket, new Error(`${this.host}: an answer with no request waiting`));
      this.waiting.status = info.statusCode;
      this.waiting.headers = info.headers;
      this.waiting.keepAlive = info.shouldKeepAlive;
    };
    parser[HTTPParser.kOnBody] = (chunk, offset, length) => {
      // Each read is a buffer of its own: keeping a view of it is safe.
      this.waiting?.chunks.push(chunk.subarray(offset, offset + length));
    };
    parser[HTTPParser.kOnMessageComplete] = () => {
      const waiting = this.waiting;
      if (!waiting) return;
      this.waiting = undefined;
      if (!waiting.keepAlive) this.drop(socket);
      const { chunks } = waiting;
      waiting.resolve({
        status: waiting.status,
        headers: waiting.headers,
        body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks),
      });
    };
    socket.setTimeout(this.timeoutMs, () => this.fail(socket, new Error(`${this.host}: no answer within ${this.timeoutMs} ms`)));
    socket.on('data', (data: Buffer) => {
      if (!this.waiting) return this.fail(socket, new Error(`${this.host}: bytes with no request waiting`));
      const parsed = parser.execute(data);
      if (parsed instanceof Error) this.fail(socket, new Error(`${this.host}: not an HTTP answer: ${parsed.message}`));
    });
    // A body read to the connection's end completes at its end.
    socket.on('end', () => {
      if (this.waiting && this.socket === socket) parser.finish();
      this.fail(socket, new Error(`${this.host}: the connection closed before the whole answer`));
    });
    socket.on('error', (error) => this.fail(socket, new Error(`${this.host}: ${error.message}`)));
    socket.on('close', () => this.fail(socket, new Error(`${this.host}: the connection closed before the whole answer`)));
    this.socket = socket;
    return socket;
  }

  /** Forgets a connection (the next request opens another) and closes it. */
  private drop(socket: Socket): void {
    if (this.socket === socket) this.socket = undefined;
    socket.destroy();
  }

  /** Drops a connection; the request waiting on it, if any, fails with `error`. */
  private fail(socket: Socket, error: Error): void {
    const current = this.socket === socket;
    this.drop(socket);
    if (!current) return;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.reject(error);
  }
}
