/**
 * A TCP relay between the service and PostgreSQL, so a test can take the database away the way a network does,
 * without stopping the PostgreSQL server other tests share: `cut` drops every connection and refuses new ones,
 * `stall` keeps connections open but lets no byte through (a silent network), `restore` brings it back.
 */
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';

export interface Proxy {
  port: number;
  /** The URL to use instead of `target`'s. */
  url(target: string): string;
  cut(): Promise<void>;
  stall(): void;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startProxy(targetHost: string, targetPort: number): Promise<Proxy> {
  const sockets = new Set<Socket>();
  let stalled = false;
  const held: (() => void)[] = [];
  let server: Server | undefined;
  let port = 0;

  function relay(from: Socket, to: Socket): void {
    from.on('data', (chunk: Buffer) => {
      if (!stalled) to.write(chunk);
      else held.push(() => to.write(chunk));
    });
  }

  async function listen(): Promise<void> {
    server = createServer((client) => {
      const upstream = connect(targetPort, targetHost);
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
        s.on('error', () => undefined);
      }
      relay(client, upstream);
      relay(upstream, client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(port, '127.0.0.1', () => resolve());
    });
    port = (server.address() as AddressInfo).port;
  }

  async function stopListening(): Promise<void> {
    const s = server;
    server = undefined;
    for (const sock of sockets) sock.destroy();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  await listen();
  return {
    get port() {
      return port;
    },
    url(target) {
      const u = new URL(target);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    cut: stopListening,
    stall() {
      stalled = true;
    },
    async restore() {
      stalled = false;
      for (const write of held.splice(0)) write();
      if (!server) await listen();
    },
    close: stopListening,
  };
}
