/**
 * Connection slots of the socket servers (SMTP, FTP, SFTP), shared by their adapters so that every one defends
 * itself the same way against clients that open connections and do nothing with them.
 *
 * The guard sits in front of the library's own handling: it sees each accepted socket before the library does
 * (gate() wraps the net.Server's 'connection' event) and either admits it or closes it with the protocol's refusal
 * line. An admitted connection is "waiting" until the protocol says it has proved itself (logged in, or for SMTP
 * named a real order mailbox): then it is "trusted".
 *
 * What must stay true:
 * - one address never holds more than `perAddress` waiting connections (an idle flood from one host costs the host
 *   its own slots, nobody else's);
 * - waiting connections never take the last `reservedForTrusted` slots, so customers already logged in keep working;
 * - a new connection is never turned away because idle strangers fill the waiting slots: a waiting connection is
 *   closed to make room (like OpenSSH's MaxStartups drop), and no waiting connection outlives `waitingTimeoutMs`;
 * - the one closed is chosen among those that have sent nothing for PROGRESS_MS (a client sending its commands, even
 *   with pauses of a few seconds, is never closed for a newcomer), from the address that has opened the most
 *   connections lately (churn), then has the most waiting, and of those the oldest: a flood of fresh connections
 *   from a few addresses costs those addresses, while a customer's client from its own address keeps its time to log
 *   in. A newcomer from a churning address is refused rather than closing a quiet address's connection, and when
 *   every waiting connection is making progress the newcomer is refused.
 */
import type { Server, Socket } from 'node:net';

export interface GuardLimits {
  /** Connections at once, waiting and trusted together. */
  total: number;
  /** Of `total`, the slots waiting connections may never take. */
  reservedForTrusted: number;
  /** Waiting connections from one address. */
  perAddress: number;
  /** A waiting connection is closed after this long. */
  waitingTimeoutMs: number;
}

export type RefusalReason = 'per-address' | 'full' | 'timeout' | 'evicted';

export interface Ticket {
  readonly remote: string;
  /** The client proved itself (logged in, named a real mailbox): it no longer counts as waiting. */
  trust(): void;
  /** The connection ended: give its slot back (called automatically when the socket closes). */
  release(): void;
}

export interface GuardCounts {
  waiting: number;
  trusted: number;
  refused: number;
  evicted: number;
}

export interface ConnectionGuard {
  /**
   * Put the guard in front of a net.Server: every socket it accepts is admitted or refused before the library sees
   * it. `refuse` writes the protocol's refusal (or nothing) and closes; `timedOut` does the same for a waiting
   * connection closed later. onAdmit receives the ticket of each admitted socket.
   */
  gate(server: Server, hooks: {
    refuse(socket: Socket, reason: RefusalReason): void;
    onAdmit?(socket: Socket, ticket: Ticket): void;
  }): void;
  /** The ticket of an admitted socket (by the socket the library hands to its own handlers). */
  ticketOf(socket: Socket | undefined | null): Ticket | undefined;
  counts(): GuardCounts;
}

/** An IPv4 client on a dual-stack socket shows up as ::ffff:a.b.c.d: the same address. */
export function plainAddress(address: string | undefined): string {
  return (address ?? 'unknown').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '').toLowerCase();
}

interface Slot {
  socket: Socket;
  remote: string;
  state: 'waiting' | 'trusted' | 'gone';
  timer?: NodeJS.Timeout;
  close: (reason: RefusalReason) => void;
  /** socket.bytesRead when last looked at, and when it was last seen to grow (0: never). */
  seenBytes: number;
  progressAt: number;
}

/**
 * A waiting connection that has sent bytes within this long is making progress and is never closed for a newcomer.
 * Clients pause between commands (a person typing, a script's own round trips on a loaded link: seconds), and an
 * idle flood sends nothing; a flood that trickles bytes is still bounded by `perAddress` and `waitingTimeoutMs`.
 */
export const PROGRESS_MS = 10_000;
/** Half-life of an address's count of recent connections: churn is what an address did in the last several seconds. */
const CHURN_HALF_LIFE_MS = 10_000;
/**
 * An address with at least this many recent connections (decayed) is churning: a client opens one connection, a
 * relay or FileZilla a handful at once, a flood dozens a second.
 */
const CHURN_CONNECTIONS = 8;
/** Addresses whose recent connections are remembered at once: memory stays bounded whatever the number of sources. */
const MAX_REMEMBERED_ADDRESSES = 10_000;

export function createConnectionGuard(limits: GuardLimits, log?: { info(o: object, msg: string): void }): ConnectionGuard {
  // Insertion order is age order: the first waiting slot is the oldest, the one evicted first.
  const waiting = new Set<Slot>();
  const perAddress = new Map<string, number>();
  const bySocket = new WeakMap<Socket, Slot>();
  let trusted = 0;
  let refused = 0;
  let evicted = 0;
  const waitingCap = Math.max(1, limits.total - limits.reservedForTrusted);
  // Recent connections per address, decayed; the Map's order is the order of last update (re-inserted on each).
  const recent = new Map<string, { n: number; at: number }>();

  function decayed(e: { n: number; at: number } | undefined, now: number): number {
    return e ? e.n * 0.5 ** ((now - e.at) / CHURN_HALF_LIFE_MS) : 0;
  }

  function countConnection(remote: string, now: number): void {
    const n = decayed(recent.get(remote), now) + 1;
    recent.delete(remote);
    recent.set(remote, { n, at: now });
    // The least recently seen addresses are forgotten first: their counts have decayed the most.
    while (recent.size > MAX_REMEMBERED_ADDRESSES) recent.delete(recent.keys().next().value as string);
  }

  function churn(remote: string, now: number): number {
    return decayed(recent.get(remote), now);
  }

  function progressing(slot: Slot, now: number): boolean {
    const bytes = slot.socket.bytesRead;
    if (bytes !== slot.seenBytes) {
      slot.seenBytes = bytes;
      slot.progressAt = now;
    }
    return slot.progressAt > 0 && now - slot.progressAt < PROGRESS_MS;
  }

  /**
   * The waiting connection to close for a newcomer: not making progress, from the most churning address, then the
   * address with the most waiting, then the oldest (the Set's order is age order).
   */
  function victim(now: number): { slot: Slot; churn: number } | undefined {
    let best: { slot: Slot; churn: number; waiting: number } | undefined;
    for (const slot of waiting) {
      if (progressing(slot, now)) continue;
      const c = churn(slot.remote, now);
      const w = perAddress.get(slot.remote) ?? 0;
      if (!best || c > best.churn || (c === best.churn && w > best.waiting)) best = { slot, churn: c, waiting: w };
    }
    return best;
  }

  function leaveWaiting(slot: Slot): void {
    if (!waiting.delete(slot)) return;
    clearTimeout(slot.timer);
    const n = (perAddress.get(slot.remote) ?? 1) - 1;
    if (n <= 0) perAddress.delete(slot.remote);
    else perAddress.set(slot.remote, n);
  }

  function ticket(slot: Slot): Ticket {
    return {
      remote: slot.remote,
      trust() {
        if (slot.state !== 'waiting') return;
        leaveWaiting(slot);
        slot.state = 'trusted';
        trusted++;
      },
      release() {
        if (slot.state === 'gone') return;
        if (slot.state === 'trusted') trusted--;
        else leaveWaiting(slot);
        slot.state = 'gone';
      },
    };
  }

  function admit(socket: Socket, close: (reason: RefusalReason) => void): Slot | RefusalReason {
    const remote = plainAddress(socket.remoteAddress);
    const now = Date.now();
    countConnection(remote, now);
    if ((perAddress.get(remote) ?? 0) >= limits.perAddress) return 'per-address';
    if (waiting.size + trusted >= limits.total && waiting.size === 0) return 'full';
    // Room is made by closing a waiting connection (victim()): when the waiting share is used up, or when every
    // slot is taken (then only a waiting one can give way; trusted ones are never closed for a newcomer).
    if (waiting.size >= waitingCap || waiting.size + trusted >= limits.total) {
      const v = victim(now);
      if (!v) return 'full';
      // A churning address's newcomer does not push out a quiet address's client: it is the churn that waits.
      if (v.churn < CHURN_CONNECTIONS && churn(remote, now) >= CHURN_CONNECTIONS) return 'per-address';
      const out = v.slot;
      evicted++;
      log?.info({ remote: out.remote }, 'connection waiting to log in closed to make room for a new one');
      ticket(out).release();
      out.close('evicted');
    }
    const slot: Slot = { socket, remote, state: 'waiting', close, seenBytes: 0, progressAt: 0 };
    slot.timer = setTimeout(() => {
      if (slot.state !== 'waiting') return;
      ticket(slot).release();
      close('timeout');
    }, limits.waitingTimeoutMs);
    slot.timer.unref();
    waiting.add(slot);
    perAddress.set(remote, (perAddress.get(remote) ?? 0) + 1);
    return slot;
  }

  return {
    gate(server, hooks) {
      const emit = server.emit.bind(server);
      // net.Server hands each accepted socket to its listeners through emit('connection'): answering here, before
      // the library's listener, means a refused socket never costs a protocol session.
      server.emit = ((event: string | symbol, ...args: unknown[]) => {
        if (event !== 'connection') return emit(event, ...args);
        const socket = args[0] as Socket;
        const close = (reason: RefusalReason) => hooks.refuse(socket, reason);
        const slot = admit(socket, close);
        if (typeof slot === 'string') {
          refused++;
          socket.on('error', () => undefined);
          hooks.refuse(socket, slot);
          return true;
        }
        bySocket.set(socket, slot);
        const t = ticket(slot);
        socket.once('close', () => t.release());
        hooks.onAdmit?.(socket, t);
        return emit(event, ...args);
      }) as typeof server.emit;
    },
    ticketOf(socket) {
      const slot = socket ? bySocket.get(socket) : undefined;
      return slot && ticket(slot);
    },
    counts: () => ({ waiting: waiting.size, trusted, refused, evicted }),
  };
}
