/**
 * FTPS (explicit TLS) done the way real clients need it, wrapped around ftp-srv without editing it:
 *
 * - Data connections. ftp-srv's passive connector accepted protected data connections with a TLS server and
 *   counted the connection as open only once its handshake was over, waiting 5 s for that before the 150 reply.
 *   lftp (GnuTLS) completes its handshake only after the 150 reply, FileZilla and curl before it; lftp therefore
 *   got `425 No connection established` whenever timing went against it. Here the TCP connection counts as open at
 *   once and is wrapped in a server-side TLSSocket at once: a client that handshakes first finds the server ready,
 *   one that waits for the 150 gets it, and whatever the server writes meanwhile is sent once the handshake is done.
 * - AUTH TLS. ftp-srv wrapped the control connection in TLS only once its 234 reply had been written, while the
 *   socket kept reading: a client quick to send its ClientHello (curl, about one time in three) had it parsed as an
 *   FTP command and got a plain-text reply where a TLS record was due ("wrong version number"). Here the socket stops
 *   reading before the 234 goes out; what arrives meanwhile waits in its buffer, which Node's TLSSocket reads first.
 * - FEAT advertises AUTH TLS, PBSZ and PROT only when a certificate is configured (ftp-srv always did).
 * - requireTls refuses USER and PASS on a connection that has not done AUTH TLS, so passwords never cross in clear.
 */
import { createRequire } from 'node:module';
import { createServer, type Socket } from 'node:net';
import { createSecureContext, TLSSocket, type SecureContext } from 'node:tls';
import type { FtpConnection } from 'ftp-srv';
import { plainAddress } from '../connection-guard.ts';
import { listenRandom } from './ftp-passive.ts';

const require = createRequire(import.meta.url);

/** The parts of ftp-srv's passive connector (src/connector/passive.js, 4.6) this file relies on. */
interface PassiveConnector {
  connection: Connection;
  dataSocket: (Socket & { connected?: boolean }) | null;
  dataServer: { close(): void; maxConnections: number; listen(port: number, host: string, cb: (err?: Error) => void): void; on(e: string, f: (...a: never[]) => void): void; once(e: string, f: () => void): void } | null;
  server: { getNextPasvPort(): Promise<number>; url: { hostname: string }; emit(e: string, v: unknown): void };
  log: { error(o: object, m: string): void; debug(o: object, m: string): void };
  setupServer(): Promise<unknown>;
  closeServer(): void;
  end(): void;
}
type PassiveClass = new (connection: Connection) => PassiveConnector;
interface Connection {
  secure: boolean;
  commandSocket: Socket;
  connector: unknown;
  commands: { handle(command: unknown): unknown; parse(message: string): { directive: string; arg: string | null } };
  reply(options: number | object, ...letters: unknown[]): Promise<unknown>;
}

const Passive = require('ftp-srv/src/connector/passive') as PassiveClass;
const registry = require('ftp-srv/src/commands/registry') as Record<string, { flags?: { feat?: string } }>;

/** What ftp-srv waited for before giving up on a data connection; kept, so FTP behaves as before apart from TLS. */
const CONNECT_TIMEOUT_MS = 30_000;
/** A protected data connection whose client never completes the handshake is dropped rather than held open. */
const DATA_HANDSHAKE_TIMEOUT_MS = 30_000;
const TLS_FEATURES = new Set(['AUTH TLS', 'PBSZ', 'PROT']);

export interface FtpTlsOptions {
  /** Certificate and key (PEM): undefined when FTPS is not offered. */
  tls?: { cert: Buffer; key: Buffer };
  /** INTAKE_FTP_REQUIRE_TLS: refuse to log in before AUTH TLS. */
  requireTls: boolean;
}

/** Passive data connections whose TLS handshake may come before or after the 150 reply (see the file comment). */
class TlsPassive extends Passive {
  constructor(connection: Connection, private readonly context: () => SecureContext) {
    super(connection);
  }

  override setupServer(): Promise<unknown> {
    if (!this.connection.secure) return super.setupServer();
    // ftp-srv's own code, with a plain TCP server whose sockets are wrapped at once instead of a TLS server, and the
    // rules of ftp-passive.ts for plain FTP: a random port of the range, and a connection from another address (or a
    // second one) dropped while the port keeps waiting for the client, whose session goes on (RFC 2577).
    this.closeServer();
    this.dataSocket = null;
    const expected = plainAddress(this.connection.commandSocket.remoteAddress);
    let idle: NodeJS.Timeout | undefined;
    const onSocket = (raw: Socket) => {
      if (plainAddress(raw.remoteAddress) !== expected || this.dataSocket) {
        this.log.error({ pasv_connection: raw.remoteAddress, cmd_connection: expected }, 'stray passive data connection dropped');
        raw.destroy();
        return;
      }
      clearTimeout(idle);
      const socket = new TLSSocket(raw, { isServer: true, secureContext: this.context() }) as TLSSocket & { connected?: boolean };
      const handshake = setTimeout(() => socket.destroy(new Error('TLS handshake on the data connection timed out')), DATA_HANDSHAKE_TIMEOUT_MS);
      socket.once('secure', () => clearTimeout(handshake));
      socket.once('close', () => clearTimeout(handshake));
      socket.on('error', (err: Error) => this.server.emit('client-error', { connection: this.connection, context: 'dataSocket', error: err }));
      socket.once('close', () => this.closeServer());
      socket.connected = true;
      this.dataSocket = socket;
    };
    const options = (this.server as unknown as { options: { pasv_min?: number; pasv_max?: number } }).options;
    return listenRandom(() => createServer({ pauseOnConnect: false }, onSocket), this.server.url.hostname,
      options.pasv_min ?? 1024, options.pasv_max ?? 65535).then((server) => {
      server.on('error', (err: Error) => this.server.emit('client-error', { connection: this.connection, context: 'dataServer', error: err }));
      server.once('close', () => this.end());
      this.dataServer = server as unknown as PassiveConnector['dataServer'];
      idle = setTimeout(() => this.closeServer(), CONNECT_TIMEOUT_MS);
      return server;
    });
  }
}

/** AUTH TLS on the control connection, as ftp-srv's auth.js does it but with the socket paused first (file comment). */
function startTls(c: Connection, secureContext: SecureContext): Promise<unknown> {
  const raw = c.commandSocket;
  raw.pause();
  return c.reply(234).then(() => {
    // The TLS socket takes what is buffered (the ClientHello) with read(), which also emits it as 'data', a tick
    // later: the listeners of the plain socket (ftp-srv's command parser) are moved to the TLS socket for good, or
    // they would take the ClientHello for a command.
    const listeners = raw.listeners('data') as ((...args: unknown[]) => void)[];
    raw.removeAllListeners('data');
    const secure = new TLSSocket(raw, { isServer: true, secureContext });
    secure.on('data', (chunk: Buffer) => {
      for (const l of listeners) l.call(raw, chunk);
    });
    // ftp-srv listens on the plain socket it was given: the TLS socket's other events are passed on to it.
    for (const event of ['timeout', 'end', 'close', 'drain', 'error']) {
      secure.on(event, (...args: unknown[]) => raw.emit(event, ...args));
    }
    c.commandSocket = secure;
    c.secure = true;
  });
}

function features(tls: boolean): string[] {
  const feats = new Set(['UTF8']);
  for (const command of Object.values(registry)) {
    const f = command.flags?.feat;
    if (f && (tls || !TLS_FEATURES.has(f))) feats.add(f);
  }
  return [...feats].sort();
}

/** Called on ftp-srv's 'connect' event, before the greeting: adapts that one connection. */
export function adaptFtpConnection(connection: FtpConnection, opts: FtpTlsOptions): void {
  const c = connection as unknown as Connection;
  let context: SecureContext | undefined;
  const secureContext = () => (context ??= createSecureContext({ cert: opts.tls?.cert, key: opts.tls?.key }));

  // PASV and EPSV assign `new PassiveConnector(this)` and call setupServer() on what they assigned: the setter
  // puts ours in its place. Anything else (the base connector after a transfer) is kept as it is.
  let current = c.connector;
  Object.defineProperty(c, 'connector', {
    configurable: true, enumerable: true,
    get: () => current,
    set: (next: unknown) => {
      current = opts.tls && next instanceof Passive && !(next instanceof TlsPassive) ? new TlsPassive(c, secureContext) : next;
    },
  });

  const feat = features(Boolean(opts.tls));
  const handle = c.commands.handle.bind(c.commands);
  c.commands.handle = (command: unknown) => {
    const parsed = typeof command === 'string' ? c.commands.parse(command) : (command as { directive: string; arg: string | null });
    if (parsed.directive === 'AUTH' && opts.tls && !c.secure && parsed.arg?.trim().toUpperCase() === 'TLS') return startTls(c, secureContext());
    if (parsed.directive === 'FEAT') {
      return c.reply(211, 'Extensions supported', ...feat.map((f) => ({ message: ` ${f}`, raw: true })), 'End');
    }
    if (opts.requireTls && !c.secure && (parsed.directive === 'USER' || parsed.directive === 'PASS')) {
      // 530 "not logged in" is the reply RFC 4217 servers (vsftpd, ProFTPD) give when policy demands TLS first.
      return c.reply(530, 'Accesso consentito solo con TLS: inviare prima AUTH TLS (FTPS esplicito)');
    }
    return handle(parsed);
  };
}
