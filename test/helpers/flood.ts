/**
 * Idle-connection floods for the availability tests: raw TCP sockets opened from chosen loopback addresses
 * (127.0.0.2, 127.0.0.3, …: Linux routes all of 127/8 to the loopback), so that the attacker and the customer
 * (127.0.0.1) are different addresses on one machine.
 */
import { connect, type Socket } from 'node:net';
import { waitFor } from './service.ts';

export interface FloodSocket {
  socket: Socket;
  /** Everything the server sent. */
  text: string;
  closed: boolean;
}

export interface Flood {
  sockets: FloodSocket[];
  /** Sockets the server has closed. */
  closed(): FloodSocket[];
  open(): FloodSocket[];
  destroy(): void;
}

/**
 * A socket the server has made up its mind about: greeted it (a banner) or closed it. An FTP refusal (`421 …`) is
 * written just before the close, so a socket that has only read it is counted once its close has come too:
 * counted earlier, it would still look open to a test that counts the open ones.
 */
function settled(s: FloodSocket): boolean {
  return s.closed || (s.text.length > 0 && !s.text.startsWith('421'));
}

/** Open `count` sockets from each address in `from`; resolves once each has been answered (banner or refusal) or closed. */
export async function flood(port: number, from: readonly string[], count: number, answered = settled): Promise<Flood> {
  const sockets: FloodSocket[] = [];
  for (const localAddress of from) {
    for (let i = 0; i < count; i++) {
      const s: FloodSocket = { socket: connect({ port, host: '127.0.0.1', localAddress }), text: '', closed: false };
      s.socket.on('data', (d: Buffer) => {
        s.text += d.toString('latin1');
      });
      s.socket.on('error', () => undefined);
      s.socket.on('close', () => {
        s.closed = true;
      });
      sockets.push(s);
    }
  }
  const f: Flood = {
    sockets,
    closed: () => sockets.filter((s) => s.closed),
    open: () => sockets.filter((s) => !s.closed),
    destroy: () => sockets.forEach((s) => s.socket.destroy()),
  };
  await waitFor(() => (sockets.every((s) => s.closed || answered(s)) ? true : undefined), 15_000, 'every flood socket answered');
  return f;
}

/** 127.0.0.N for N in [first, first + n). */
export function loopbacks(first: number, n: number): string[] {
  return Array.from({ length: n }, (_, i) => `127.0.0.${first + i}`);
}
