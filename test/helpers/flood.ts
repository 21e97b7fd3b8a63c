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

export interface Churn {
  /** Connections opened so far. */
  opened(): number;
  /** Connections the server closed with a line matching `re` (e.g. its "closed to make room" refusal). */
  told(re: RegExp): number;
  /** Stop opening connections and close every one still open. */
  stop(): void;
}

/**
 * Connection churn: `perSecond` new idle connections a second, taken in turn from the addresses in `from`, each
 * left open (sending nothing) until the server closes it. The pace is kept by the clock, not by the timer's ticks,
 * so a loaded machine's late ticks open the connections they missed.
 */
export function churn(port: number, from: readonly string[], perSecond: number): Churn {
  const open = new Set<Socket>();
  const texts: string[] = [];
  let opened = 0;
  const started = Date.now();
  const tick = () => {
    const due = Math.floor(((Date.now() - started) / 1000) * perSecond);
    // At most a second's worth at once: a long stall does not end in a burst the server never saw otherwise.
    for (let k = 0; opened < due && k < perSecond; k++) {
      const socket = connect({ port, host: '127.0.0.1', localAddress: from[opened % from.length] });
      opened++;
      let text = '';
      socket.on('data', (d: Buffer) => {
        text += d.toString('latin1');
      });
      socket.on('error', () => undefined);
      socket.on('close', () => {
        open.delete(socket);
        if (texts.length < 100_000) texts.push(text);
      });
      open.add(socket);
    }
  };
  const timer = setInterval(tick, 10);
  return {
    opened: () => opened,
    told: (re) => texts.filter((t) => re.test(t)).length,
    stop() {
      clearInterval(timer);
      for (const s of open) s.destroy();
    },
  };
}
