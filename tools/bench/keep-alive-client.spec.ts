import { createServer, type Server, type Socket } from 'node:net';
import { headerOf, isJsonObject, KeepAliveConnection, requestText } from './keep-alive-client';

/** A raw TCP server whose every request (read up to its blank line) the test answers by hand. */
async function rawServer(answer: (socket: Socket, request: string, n: number) => void): Promise<{
  server: Server;
  connections: () => number;
  requests: string[];
  port: number;
}> {
  let connections = 0;
  const requests: string[] = [];
  const server = createServer((socket) => {
    connections++;
    let pending = '';
    socket.on('data', (data) => {
      pending += data.toString('latin1');
      for (let end = pending.indexOf('\r\n\r\n'); end >= 0; end = pending.indexOf('\r\n\r\n')) {
        const length = Number(/content-length: (\d+)/i.exec(pending.slice(0, end))?.[1] ?? 0);
        if (pending.length < end + 4 + length) return;
        const request = pending.slice(0, end + 4 + length);
        pending = pending.slice(end + 4 + length);
        requests.push(request);
        answer(socket, request, requests.length);
      }
    });
    // A client's reset of a connection is one of the cases; nothing to report.
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, connections: () => connections, requests, port: (server.address() as { port: number }).port };
}

const ok = (body: string, extra = '') =>
  `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;

describe('KeepAliveConnection', () => {
  const servers: Server[] = [];
  const connections: KeepAliveConnection[] = [];
  const serve = async (answer: Parameters<typeof rawServer>[0]) => {
    const raw = await rawServer(answer);
    servers.push(raw.server);
    const connection = new KeepAliveConnection('127.0.0.1', raw.port, 2000);
    connections.push(connection);
    return { ...raw, connection, get: (path = '/') => connection.send(requestText('GET', path, connection.host)) };
  };
  afterEach(async () => {
    for (const c of connections.splice(0)) c.close();
    await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
  });

  it('sends the request text as built: the request line, host, the headers, content-length and the body', async () => {
    const { connection, requests } = await serve((socket) => socket.write(ok('{}')));
    await connection.send(
      requestText('POST', '/api/x', connection.host, { 'api-token': 't1', 'content-type': 'application/json' }, '{"a":"å"}'),
    );
    await connection.send(requestText('POST', '/api/y', connection.host));
    expect(requests).toEqual([
      // The body in UTF-8 (the server reads latin1 here), its length in bytes.
      Buffer.from(
        `POST /api/x HTTP/1.1\r\nhost: ${connection.host}\r\napi-token: t1\r\ncontent-type: application/json\r\ncontent-length: 10\r\n\r\n{"a":"å"}`,
      ).toString('latin1'),
      `POST /api/y HTTP/1.1\r\nhost: ${connection.host}\r\ncontent-length: 0\r\n\r\n`,
    ]);
  });

  it('reads an answer split across many reads, byte by byte', async () => {
    const { get } = await serve((socket) => {
      const bytes = Buffer.from(ok('{"token":"abc"}', 'location: /there\r\n'));
      let i = 0;
      const next = () => {
        if (i < bytes.length) socket.write(bytes.subarray(i, ++i), () => setImmediate(next));
      };
      next();
    });
    const answer = await get();
    expect(answer.status).toBe(200);
    expect(answer.body.toString()).toBe('{"token":"abc"}');
    expect(headerOf(answer, 'location')).toBe('/there');
    expect(isJsonObject(answer.body)).toBe(true);
  });

  it('reads a chunked answer, its chunks in separate reads', async () => {
    const { get } = await serve((socket) => {
      socket.write('HTTP/1.1 201 Created\r\ntransfer-encoding: chunked\r\n\r\n5\r\n{"a":\r\n');
      setTimeout(() => socket.write('3\r\n"b"\r\n1\r\n}\r\n0\r\n\r\n'), 20);
    });
    const answer = await get();
    expect(answer.status).toBe(201);
    expect(answer.body.toString()).toBe('{"a":"b"}');
  });

  it('reuses one connection for answer after answer', async () => {
    const { get, connections: opened } = await serve((socket, _request, n) => socket.write(ok(`{"n":${n}}`)));
    for (let n = 1; n <= 5; n++) expect((await get()).body.toString()).toBe(`{"n":${n}}`);
    expect(opened()).toBe(1);
  });

  it('drops a connection that sent more answers than it was asked for, in the same read: the next request never gets the extra one', async () => {
    const { get, connections: opened } = await serve((socket, _request, n) =>
      socket.write(n === 1 ? ok('{"n":1}') + ok('{"extra":true}') : ok(`{"n":${n}}`)),
    );
    expect((await get()).body.toString()).toBe('{"n":1}');
    expect((await get()).body.toString()).toBe('{"n":2}');
    expect(opened()).toBe(2);
  });

  it('opens a new connection after an answer with connection: close, or after the server closed an idle one', async () => {
    const { get, connections: opened } = await serve((socket, _request, n) => {
      if (n === 1) socket.end(ok('{"n":1}', 'connection: close\r\n'));
      else if (n === 2) socket.write(ok('{"n":2}'), () => setTimeout(() => socket.end(), 10));
      else socket.write(ok(`{"n":${n}}`));
    });
    expect((await get()).body.toString()).toBe('{"n":1}');
    expect((await get()).body.toString()).toBe('{"n":2}');
    await new Promise((r) => setTimeout(r, 50));
    expect((await get()).body.toString()).toBe('{"n":3}');
    expect(opened()).toBe(3);
  });

  it('reads a body that ends with the connection (no length, not chunked)', async () => {
    const { get } = await serve((socket) => socket.end('HTTP/1.1 200 OK\r\nconnection: close\r\n\r\n{"to":"the end"}'));
    expect((await get()).body.toString()).toBe('{"to":"the end"}');
  });

  it('fails a request whose connection closes before the whole answer, and the next request works', async () => {
    const { get } = await serve((socket, _request, n) => {
      if (n === 1) socket.end('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n{"half');
      else socket.write(ok('{}'));
    });
    await expect(get()).rejects.toThrow(/closed before the whole answer/);
    expect((await get()).status).toBe(200);
  });

  it('fails a request the server drops without a byte, one that is not answered in time, and one it cannot connect for', async () => {
    const { get, connection } = await serve((socket, _request, n) => {
      if (n === 1) socket.destroy();
      // the second is never answered
    });
    await expect(get()).rejects.toThrow(/closed before the whole answer/);
    const started = Date.now();
    await expect(get()).rejects.toThrow(/no answer within 2000 ms/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
    connection.close();
    const closed = new KeepAliveConnection('127.0.0.1', 1, 1000);
    await expect(closed.send(requestText('GET', '/', closed.host))).rejects.toThrow(/ECONNREFUSED/);
  });

  it('fails an answer that is not HTTP, and a second request while one waits', async () => {
    const { get } = await serve((socket) => socket.write('SSH-2.0-OpenSSH\r\n\r\n'));
    const first = get();
    await expect(get()).rejects.toThrow(/already waiting/);
    await expect(first).rejects.toThrow(/not an HTTP answer/);
  });

  it('tells a JSON object envelope from other bodies', () => {
    expect(isJsonObject(Buffer.from('{"a":1}'))).toBe(true);
    for (const body of ['', '{', '[1]', 'Not Found', '{"a":1}\n']) expect(isJsonObject(Buffer.from(body))).toBe(false);
  });
});
