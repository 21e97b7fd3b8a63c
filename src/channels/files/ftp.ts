/**
 * The FTP channel: ftp-srv with a FileSystem over the customer's virtual tree (tree.ts), passive mode only, and
 * explicit TLS (AUTH TLS) when a certificate is configured.
 *
 * Upload completion: ftp-srv pipes the data connection into the Writable that write() returns and replies 226 on
 * that stream's 'finish'. The stream's _final commits the bytes, so 'finish', and with it the 226, comes only once
 * they are durable; a failed commit becomes the 550 reply. When the data connection ends, ftp-srv emits 'close' on
 * the stream instead of ending it if anything listens to 'close' (pipe() does), so the stream ends itself then.
 *
 * Known limit of FTP itself (stream mode): the end of a file is the end of the data connection, so a client that
 * closes the data connection cleanly midway looks like a finished upload; a reset that overtakes bytes the server
 * has not read yet can also reach it as a plain end of file (that is how Linux reports it); and ftp-srv reads ABOR
 * only after the transfer. A reset seen as such, or a dropped control connection, is recognised and the upload
 * discarded. Clients that must be exact use a temporary name and rename it, or SFTP.
 */
import type { EventEmitter } from 'node:events';
import type { Server, Socket } from 'node:net';
import { Readable, Writable } from 'node:stream';
import { FileSystem, FtpSrv, type FtpConnection } from 'ftp-srv';
import type { Logger } from '../../log.ts';
import { adaptFtpConnection } from './ftp-tls.ts';
import { readTlsFiles } from '../../http/tls.ts';
import { createConnectionGuard, plainAddress, type Ticket } from '../connection-guard.ts';
import { installSafePassive } from './ftp-passive.ts';
import { FILES_GUARD_LIMITS, GUARD_REFUSALS, LIMITS } from './limits.ts';
import { passwordLogin, type LoginDeps } from './login.ts';
import { resolveClientPath } from './paths.ts';
import { createTree, type FileTree } from './tree.ts';
import { TreeError, type Entry, type FilesDeps, type Upload } from './tree-model.ts';
import type { RunningServer } from './sftp.ts';

export interface FtpDeps extends FilesDeps, LoginDeps {}

export interface FtpOptions {
  host: string;
  port: number;
  /** Address given to clients in PASV replies; unset: the address the client connected to. */
  pasvUrl?: string;
  pasvMin: number;
  pasvMax: number;
  /** PEM files: explicit TLS is offered when set. */
  tls?: { certFile: string; keyFile: string };
  /** Refuse USER/PASS before AUTH TLS (INTAKE_FTP_REQUIRE_TLS). */
  requireTls?: boolean;
}

/** What ftp-srv reads from a stat: its LIST formatter uses mode, size, mtime, uid, gid and name. */
function statOf(e: Entry) {
  const mode = e.type === 'dir' ? 0o040000 | (e.writable ? 0o755 : 0o555) : 0o100000 | (e.writable ? 0o644 : 0o444);
  return {
    name: e.name, size: e.size, mtime: e.mtime, mode, uid: 'ordini', gid: 'ordini',
    isDirectory: () => e.type === 'dir', isFile: () => e.type === 'file',
  };
}

/** ftp-srv shows an error's message to the client: only our own refusals may speak, anything else is generic. */
function shown(err: unknown, log: Logger): Error {
  if (err instanceof TreeError) return new Error(err.message);
  log.error({ err }, 'ftp request failed');
  return new Error('errore interno');
}

/** The data connection of a transfer (ftp-srv opens it before calling write() or read()). */
function dataSocket(connection: FtpConnection): Socket | undefined {
  return (connection as unknown as { connector?: { socket?: Socket | null } }).connector?.socket ?? undefined;
}

class UploadStream extends Writable {
  #done = false;

  constructor(
    private readonly upload: Upload,
    private readonly touch: () => void,
    private readonly log: Logger,
    /** True when the data connection ended with a clean close, the only end of file FTP has. */
    private readonly complete: () => boolean,
  ) {
    super();
    this.once('close', () => {
      if (!this.writableEnded && !this.destroyed) this.end();
    });
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    this.touch();
    this.upload.write(chunk).then(() => cb(), (err: unknown) => cb(shown(err, this.log)));
  }

  override _final(cb: (err?: Error | null) => void): void {
    // ftp-srv also ends this stream when the data connection fails (before destroying it): that is no end of file.
    if (!this.complete()) {
      this.upload.abort('data connection failed').then(() => cb(new Error('trasferimento interrotto: file scartato')), cb);
      return;
    }
    this.upload.finish().then(() => {
      this.#done = true;
      cb();
    }, (err: unknown) => cb(shown(err, this.log)));
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    if (this.#done) return cb(err);
    this.upload.abort(err?.message ?? 'transfer interrupted').then(() => cb(err), () => cb(err));
  }
}

interface ConnectionState {
  release?: () => void;
  /** The connection's slot (connection-guard.ts): trusted once logged in. */
  ticket?: Ticket;
  uploads: Set<UploadStream>;
  touch: () => void;
  failures: number;
  timer: NodeJS.Timeout;
}

class VirtualFileSystem extends FileSystem {
  #cwd = '/';

  constructor(connection: FtpConnection, private readonly tree: FileTree, private readonly state: ConnectionState, private readonly log: Logger) {
    super(connection, { root: '/', cwd: '/' });
  }

  #resolve(p: string | null | undefined): string {
    const r = resolveClientPath(this.#cwd, p);
    if (!r.ok) throw new TreeError('denied', r.reason);
    return r.path;
  }

  async #run<T>(fn: () => Promise<T>): Promise<T> {
    this.state.touch();
    try {
      return await fn();
    } catch (err) {
      throw shown(err, this.log);
    }
  }

  override currentDirectory(): string {
    return this.#cwd;
  }

  override get(fileName: string) {
    return this.#run(async () => statOf(await this.tree.stat(this.#resolve(fileName))));
  }

  override list(path = '.') {
    return this.#run(async () => (await this.tree.list(this.#resolve(path))).map(statOf));
  }

  override chdir(path = '.') {
    return this.#run(async () => {
      const target = this.#resolve(path);
      const e = await this.tree.stat(target);
      if (e.type !== 'dir') throw new TreeError('failure', 'non è una cartella');
      this.#cwd = target;
      return target;
    });
  }

  override write(fileName: string, { append = false, start = undefined }: { append?: boolean; start?: number } = {}) {
    return this.#run(async () => {
      const clientPath = this.#resolve(fileName);
      // STOR calls write() once the data connection is open: this is the socket the bytes arrive on.
      const data = dataSocket(this.connection);
      const upload = await this.tree.upload(clientPath, { truncate: !append && !start, append, start: start || undefined });
      const complete = () => data !== undefined && data.readableEnded && !data.errored;
      const stream = new UploadStream(upload, this.state.touch, this.log, complete);
      this.state.uploads.add(stream);
      stream.once('close', () => this.state.uploads.delete(stream));
      return { stream, clientPath };
    });
  }

  override read(fileName: string, { start = undefined }: { start?: number } = {}) {
    return this.#run(async () => {
      const clientPath = this.#resolve(fileName);
      // The last piece of a download must not wait for the ACK of the one before (Nagle's algorithm).
      dataSocket(this.connection)?.setNoDelay(true);
      const data = (await this.tree.read(clientPath)).subarray(start ?? 0);
      const touch = this.state.touch;
      function* chunks() {
        for (let i = 0; i < data.length; i += LIMITS.maxReadChunk) {
          touch();
          yield data.subarray(i, i + LIMITS.maxReadChunk);
        }
      }
      return { stream: Readable.from(chunks(), { objectMode: false }), clientPath };
    });
  }

  override delete(path: string) {
    return this.#run(() => this.tree.remove(this.#resolve(path)));
  }

  override mkdir() {
    return this.#run(() => this.tree.mkdir());
  }

  override rename(from: string, to: string) {
    return this.#run(() => this.tree.rename(this.#resolve(from), this.#resolve(to)));
  }

  override chmod() {
    return this.#run(async () => {
      throw new TreeError('denied', 'i permessi dei file non si possono cambiare');
    });
  }
}

/** Reply 421 with a message and close (ftp-srv's typings call the message a number). */
function closeWith(connection: FtpConnection, message: string): void {
  void connection.close(421, message as never);
}

function ipv4(address: string | undefined): string | undefined {
  return address?.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
}

export async function startFtpServer(deps: FtpDeps, opts: FtpOptions): Promise<RunningServer> {
  const log = deps.log.child({ channel: 'ftp' });
  // One object for the server's lifetime: each connection reads its cert and key when it starts TLS, so replacing
  // them (reloadTls) reaches every handshake after it.
  const tls = opts.tls ? await readTlsFiles(opts.tls) : false;
  // The address each client reached us at, for PASV replies when no public address is configured.
  const localAddress = new Map<string, { address: string; n: number }>();
  const pasvUrl = (ip: string): string => {
    const remote = ipv4(ip) ?? ip;
    if (remote === '127.0.0.1') return remote;
    return opts.pasvUrl ?? localAddress.get(ip)?.address ?? remote;
  };

  // Stray data connections are dropped, not allowed to end the session; passive ports are random (ftp-passive.ts).
  installSafePassive();
  const signals = ['SIGTERM', 'SIGINT', 'SIGQUIT'] as const;
  const before = new Map(signals.map((s) => [s, new Set(process.listeners(s))]));
  const server = new FtpSrv({
    url: `ftp://${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${opts.port}`,
    pasv_url: pasvUrl as unknown as string,
    pasv_min: opts.pasvMin,
    pasv_max: opts.pasvMax,
    tls,
    anonymous: false,
    greeting: ['Order intake: caricare gli ordini nella cartella /ordini/'],
    // Active mode makes the server connect wherever the client says (the FTP bounce attack); STOU names files
    // itself, which means nothing here.
    blacklist: ['PORT', 'EPRT', 'STOU'],
    log: log.child({ lib: 'ftp-srv' }, { level: log.isLevelEnabled('debug') ? log.level : 'fatal' }),
    timeout: 0,
  });
  // ftp-srv exits the process on these signals; the service stops its channels itself, in order.
  for (const s of signals) for (const l of process.listeners(s)) if (!before.get(s)?.has(l)) process.off(s, l);

  const states = new Map<string, ConnectionState>();
  const raw = (server as unknown as { server: Server }).server;
  // The guard decides which connections are served; the kernel-level bound is only a backstop above it.
  raw.maxConnections = 2 * LIMITS.connectionsPerServer;
  const guard = createConnectionGuard(FILES_GUARD_LIMITS, log);
  guard.gate(raw, {
    refuse(socket, reason) {
      log.info({ remote: plainAddress(socket.remoteAddress), reason }, 'ftp connection refused');
      socket.end(`421 ${GUARD_REFUSALS[reason]}\r\n`);
      setTimeout(() => socket.destroy(), 2_000).unref();
    },
  });

  // 'connect' is emitted by ftp-srv but missing from its typings.
  (server as unknown as EventEmitter).on('connect', ({ connection }: { connection: FtpConnection & { commandSocket: Socket } }) => {
    const sock = connection.commandSocket;
    adaptFtpConnection(connection, { tls: tls || undefined, requireTls: opts.requireTls === true });
    // Replies are small writes that each wait for the client (150, then 226 once the file is stored): with
    // Nagle's algorithm the 226 waited for the ACK of the 150, which the client delays by 40 ms.
    sock.setNoDelay(true);
    const local = ipv4(sock.localAddress);
    if (local) {
      const e = localAddress.get(connection.ip) ?? { address: local, n: 0 };
      e.n++;
      localAddress.set(connection.ip, e);
    }
    const state: ConnectionState = {
      uploads: new Set(), failures: 0, ticket: guard.ticketOf(sock),
      timer: setTimeout(() => closeWith(connection, 'Tempo scaduto per il login'), LIMITS.loginTimeoutMs),
      // Before login the timer is the login deadline, which commands must not push back.
      touch: () => {
        if (state.release) state.timer.refresh();
      },
    };
    states.set(connection.id, state);
    // Commands keep the session alive (and after AUTH TLS ftp-srv still re-emits them on this socket).
    sock.on('data', () => state.touch());
  });

  server.on('disconnect', ({ connection, id }) => {
    const state = states.get(id);
    states.delete(id);
    const e = localAddress.get(connection.ip);
    if (e && --e.n <= 0) localAddress.delete(connection.ip);
    if (!state) return;
    clearTimeout(state.timer);
    // A transfer whose control connection is gone never gets its 226: it is discarded, not half-registered.
    for (const u of state.uploads) u.destroy(new Error('control connection closed during the transfer'));
    state.release?.();
  });

  server.on('login', ({ connection, username, password }, resolve, reject) => {
    const state = states.get(connection.id);
    const remote = ipv4(connection.ip) ?? 'unknown';
    void passwordLogin(deps, username, password, remote, 'ftp').then((r) => {
      if (!state) {
        // The client left while its password was being checked: give the session slot back.
        if (r.ok) r.release();
        return reject(new Error('connessione chiusa'));
      }
      if (!r.ok) {
        state.failures++;
        reject(new Error(r.message));
        if (state.failures >= LIMITS.loginAttemptsPerConnection) closeWith(connection, r.message);
        return;
      }
      state.release = r.release;
      state.ticket?.trust();
      clearTimeout(state.timer);
      state.timer = setTimeout(() => {
        log.info({ remote, customer: r.principal.customerCode }, 'ftp session idle: closed');
        closeWith(connection, 'Sessione inattiva chiusa');
      }, LIMITS.idleTimeoutMs);
      const tree = createTree(deps, { principal: r.principal, channel: 'ftp', remote, user: username });
      resolve({ fs: new VirtualFileSystem(connection, tree, state, log), cwd: '/' });
    }, (err: unknown) => {
      log.error({ err }, 'ftp login failed');
      reject(new Error('Servizio momentaneamente non disponibile'));
    });
  });

  deps.metrics?.trackConnections('ftp', raw as unknown as EventEmitter);
  server.on('client-error', ({ error }) => log.debug({ err: error }, 'ftp client error'));

  await server.listen();
  const port = raw as unknown as { address(): { port: number } };
  const bound = port.address().port;
  log.info({ port: bound, tls: Boolean(tls), pasv: `${opts.pasvMin}-${opts.pasvMax}` }, `FTP listening on port ${bound}`);
  const files = opts.tls;
  return {
    port: bound,
    async close() {
      await server.close();
    },
    ...(tls && files ? {
      async reloadTls() {
        Object.assign(tls, await readTlsFiles(files));
      },
    } : {}),
  };
}
