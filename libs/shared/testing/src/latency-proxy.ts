import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

/** A TCP proxy on loopback that delays what the client sends: every round trip through it costs `delayMs` more. */
export interface LatencyProxy {
  /** The proxy's port on 127.0.0.1. */
  readonly port: number;
  /** `url` (of the proxied engine) with its host and port replaced by the proxy's. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * A busy machine, where each statement's round trip waits for the client's and the server's turn on a CPU, in a
 * test: the client's bytes to the engine of `url` go on `delayMs` later, in order; the answers come back at once.
 */
export async function startLatencyProxy(url: string, delayMs: number): Promise<LatencyProxy> {
  const target = new URL(url);
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    client.on('data', (chunk) => setTimeout(() => upstream.destroyed || upstream.write(chunk), delayMs));
    upstream.pipe(client);
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', close).on('error', close);
    upstream.on('close', close).on('error', close);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const proxied = new URL(url);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(port);
  return {
    port,
    url: proxied.toString(),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
