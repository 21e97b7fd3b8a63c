/**
 * The SFTP protocol: an SSH server (ssh2) that offers only the sftp subsystem, with password login, over the
 * customer's virtual tree (tree.ts). This file only translates SFTP requests into tree calls and tree errors into
 * SFTP status codes. It runs in the SFTP thread (sftp-thread.ts), where the login and the tree are answered by the
 * main thread through an SftpGateway; nothing here touches the store.
 *
 * An upload is complete when the client CLOSEs its handle: only then are the bytes committed, and the CLOSE is
 * answered OK only once they are durable. A connection that drops with a file open discards that upload.
 */
import type { Server, Socket } from 'node:net';
import ssh2 from 'ssh2';
import type { Attributes, Connection, SFTPWrapper } from 'ssh2';
import { createConnectionGuard, plainAddress, type Ticket } from '../connection-guard.ts';
import { FILES_GUARD_LIMITS, LIMITS } from './limits.ts';
import { resolveClientPath } from './paths.ts';
import { answerLimits, LIMITS_EXTENSION, offerLimits } from './sftp-limits.ts';
import type { LoginAnswer } from './sftp-messages.ts';
import type { FileTree } from './tree.ts';
import { TreeError, type Entry, type Upload } from './tree-model.ts';

/** What the protocol needs of a logger (pino's, or the SFTP thread's, which forwards to it). */
export interface SessionLog {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** The tree calls the protocol makes. */
export type SftpTree = Pick<FileTree, 'stat' | 'list' | 'read' | 'upload' | 'rename' | 'remove' | 'mkdir' | 'rmdir' | 'setAttributes'>;

/** Login and the tree, answered where the store is (the main thread). */
export interface SftpGateway {
  login(user: string, password: string, remote: string): Promise<LoginAnswer>;
  tree(session: number): SftpTree;
  /** The session's connection is closed and its uploads ended: its slot in the per-customer limit is given back. */
  logout(session: number): void;
}

const { STATUS_CODE, OPEN_MODE } = ssh2.utils.sftp;

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

function attrsOf(e: Entry): Attributes {
  const type = e.type === 'dir' ? 0o040000 : 0o100000;
  const perm = e.type === 'dir' ? (e.writable ? 0o755 : 0o555) : (e.writable ? 0o644 : 0o444);
  const t = Math.floor(e.mtime.getTime() / 1000);
  return { mode: type | perm, uid: 0, gid: 0, size: e.size, atime: t, mtime: t };
}

/** `ls -l` style line: OpenSSH's `ls -l` and some GUI clients show it as it is. */
function longname(e: Entry): string {
  const a = attrsOf(e);
  const bits = 'rwxrwxrwx'.split('').map((c, i) => ((a.mode >> (8 - i)) & 1 ? c : '-')).join('');
  const d = e.mtime;
  const when = `${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2)} ${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')}`;
  return `${e.type === 'dir' ? 'd' : '-'}${bits} 1 ordini ordini ${String(e.size).padStart(10)} ${when} ${e.name}`;
}

function statusOf(err: unknown): { code: number; message: string } {
  if (err instanceof TreeError) {
    const code = err.kind === 'not_found' ? STATUS_CODE.NO_SUCH_FILE : err.kind === 'denied' ? STATUS_CODE.PERMISSION_DENIED : STATUS_CODE.FAILURE;
    return { code, message: err.message };
  }
  return { code: STATUS_CODE.FAILURE, message: 'errore interno' };
}

type Handle =
  | { kind: 'dir'; path: string; entries?: Entry[]; pos: number }
  | { kind: 'read'; data: Buffer }
  | {
    kind: 'write'; upload: Upload; pending: Set<Promise<void>>; error?: TreeError;
    /** Settles once the reply to the latest WRITE on this handle has been sent (see WRITE). */
    replied: Promise<void>;
  };

/** Serve one sftp channel of a logged-in connection. Returns the function that aborts what is still open. */
function serveSftp(sftp: SFTPWrapper, tree: SftpTree, log: SessionLog, touch: () => void): () => Promise<void> {
  const handles = new Map<number, Handle>();
  let next = 1;
  const cwd = '/';

  const resolve = (p: string): string => {
    const r = resolveClientPath(cwd, p);
    if (!r.ok) throw new TreeError('denied', r.reason);
    return r.path;
  };

  const handleOf = (buf: Buffer): [number, Handle] => {
    const id = buf.length === 4 ? buf.readUInt32BE(0) : -1;
    const h = handles.get(id);
    if (!h) throw new TreeError('failure', 'handle non valido');
    return [id, h];
  };

  const newHandle = (h: Handle): Buffer => {
    if (handles.size >= LIMITS.openFilesPerSession) throw new TreeError('failure', `troppi file aperti (massimo ${LIMITS.openFilesPerSession})`);
    const id = next++;
    handles.set(id, h);
    const b = Buffer.alloc(4);
    b.writeUInt32BE(id);
    return b;
  };

  /** Every request: reset the idle timer, run, and turn a refusal into its status. */
  const on = <A extends unknown[]>(event: string, fn: (reqid: number, ...args: A) => Promise<void>): void => {
    sftp.on(event, (reqid: number, ...args: A) => {
      touch();
      fn(reqid, ...args).catch((err: unknown) => {
        if (!(err instanceof TreeError)) log.error({ err, event }, 'sftp request failed');
        const s = statusOf(err);
        sftp.status(reqid, s.code, s.message);
      });
    });
  };

  on('REALPATH', async (reqid, p: string) => {
    const path = resolve(p);
    const e = await tree.stat(path).catch(() => undefined);
    sftp.name(reqid, [{ filename: path, longname: path, attrs: e ? attrsOf(e) : ({} as Attributes) }]);
  });
  for (const ev of ['STAT', 'LSTAT']) {
    on(ev, async (reqid, p: string) => sftp.attrs(reqid, attrsOf(await tree.stat(resolve(p)))));
  }
  on('FSTAT', async (reqid, b: Buffer) => {
    const [, h] = handleOf(b);
    const now = new Date();
    if (h.kind === 'read') sftp.attrs(reqid, attrsOf({ name: '', type: 'file', size: h.data.length, mtime: now, writable: false }));
    else if (h.kind === 'write') sftp.attrs(reqid, attrsOf({ name: '', type: 'file', size: h.upload.bytes, mtime: now, writable: true }));
    else sftp.attrs(reqid, attrsOf(await tree.stat(h.path)));
  });
  on('OPENDIR', async (reqid, p: string) => {
    const path = resolve(p);
    const e = await tree.stat(path);
    if (e.type !== 'dir') throw new TreeError('failure', 'non è una cartella');
    sftp.handle(reqid, newHandle({ kind: 'dir', path, pos: 0 }));
  });
  on('READDIR', async (reqid, b: Buffer) => {
    const [, h] = handleOf(b);
    if (h.kind !== 'dir') throw new TreeError('failure', 'non è una cartella');
    h.entries ??= await tree.list(h.path);
    if (h.pos >= h.entries.length) return sftp.status(reqid, STATUS_CODE.EOF);
    const batch = h.entries.slice(h.pos, h.pos + LIMITS.readdirBatch);
    h.pos += batch.length;
    sftp.name(reqid, batch.map((e) => ({ filename: e.name, longname: longname(e), attrs: attrsOf(e) })));
  });
  on('OPEN', async (reqid, p: string, flags: number) => {
    const path = resolve(p);
    if (flags & OPEN_MODE.WRITE || flags & OPEN_MODE.APPEND) {
      const upload = await tree.upload(path, { truncate: (flags & OPEN_MODE.TRUNC) !== 0, exclusive: (flags & OPEN_MODE.EXCL) !== 0 });
      try {
        sftp.handle(reqid, newHandle({ kind: 'write', upload, pending: new Set(), replied: Promise.resolve() }));
      } catch (err) {
        await upload.abort('too many open files');
        throw err;
      }
      return;
    }
    const data = await tree.read(path);
    sftp.handle(reqid, newHandle({ kind: 'read', data }));
  });
  on('READ', async (reqid, b: Buffer, offset: number, len: number) => {
    const [, h] = handleOf(b);
    if (h.kind !== 'read') throw new TreeError('failure', 'file non aperto in lettura');
    if (offset >= h.data.length) return sftp.status(reqid, STATUS_CODE.EOF);
    sftp.data(reqid, h.data.subarray(offset, offset + Math.min(len, LIMITS.maxReadChunk)));
  });
  on('WRITE', async (reqid, b: Buffer, offset: number, data: Buffer) => {
    const [, h] = handleOf(b);
    if (h.kind !== 'write') throw new TreeError('failure', 'file non aperto in scrittura');
    const w = h.error ? Promise.reject(h.error) : h.upload.write(data, offset);
    h.pending.add(w);
    // Replies leave in request order, as OpenSSH's do. A write that fills the spool buffer waits for the disk while
    // later ones are only buffered; answered as each settled, paramiko's pipelined put() (which reads replies in
    // request order and drops one it meets early) waited forever for a reply it had already thrown away.
    const previous = h.replied;
    let sent!: () => void;
    h.replied = new Promise<void>((resolve) => { sent = resolve; });
    try {
      const failure = await w.then(() => undefined, (err: unknown) => {
        // The first failed write spoils the upload: CLOSE will refuse it instead of committing a file with a hole.
        h.error ??= err instanceof TreeError ? err : new TreeError('failure', 'scrittura non riuscita');
        return h.error;
      });
      h.pending.delete(w);
      await previous;
      // Sent here rather than thrown to on(), whose status would leave a turn later, after the next write's.
      if (failure) sftp.status(reqid, statusOf(failure).code, failure.message);
      else sftp.status(reqid, STATUS_CODE.OK);
    } finally {
      sent();
    }
  });
  on('CLOSE', async (reqid, b: Buffer) => {
    const [id, h] = handleOf(b);
    handles.delete(id);
    if (h.kind === 'write') {
      await Promise.allSettled([...h.pending]);
      await h.replied; // the CLOSE reply comes after every WRITE reply, in request order
      if (h.error) {
        await h.upload.abort(h.error.message);
        throw h.error;
      }
      await h.upload.finish();
    }
    sftp.status(reqid, STATUS_CODE.OK);
  });
  on('RENAME', async (reqid, from: string, to: string) => {
    await tree.rename(resolve(from), resolve(to));
    sftp.status(reqid, STATUS_CODE.OK);
  });
  on('REMOVE', async (reqid, p: string) => {
    await tree.remove(resolve(p));
    sftp.status(reqid, STATUS_CODE.OK);
  });
  on('MKDIR', async () => tree.mkdir());
  on('RMDIR', async () => tree.rmdir());
  on('SETSTAT', async (reqid, p: string) => {
    await tree.setAttributes(resolve(p));
    sftp.status(reqid, STATUS_CODE.OK);
  });
  on('FSETSTAT', async (reqid, b: Buffer) => {
    handleOf(b);
    // Clients set times and modes on the file they just wrote; stored files keep their receive time.
    sftp.status(reqid, STATUS_CODE.OK);
  });
  on('SYMLINK', async () => {
    throw new TreeError('denied', 'i collegamenti simbolici non sono ammessi');
  });
  on('READLINK', async () => {
    throw new TreeError('not_found', 'non è un collegamento simbolico');
  });
  sftp.on('EXTENDED', (reqid: number, name: string) => {
    if (name === LIMITS_EXTENSION && answerLimits(sftp, reqid)) return;
    sftp.status(reqid, STATUS_CODE.OP_UNSUPPORTED);
  });
  // The client is done (its end of the channel is closed): close ours, or OpenSSH's sftp waits forever to exit.
  sftp.on('end', () => sftp.end());

  return async () => {
    for (const h of handles.values()) {
      if (h.kind === 'write') {
        await Promise.allSettled([...h.pending]);
        await h.upload.abort('connection closed before the file was closed').catch(() => undefined);
      }
    }
    handles.clear();
  };
}

/** Serve one SSH connection; resolves once it is closed and its uploads ended (a stop waits for that). */
function handleConnection(gateway: SftpGateway, client: Connection, remote: string, log: SessionLog, ticket: Ticket | undefined): Promise<void> {
  let ended!: () => void;
  const done = new Promise<void>((resolve) => { ended = resolve; });
  let tree: SftpTree | undefined;
  let session: number | undefined;
  let attempts = 0;
  let closed = false;
  const aborts: (() => Promise<void>)[] = [];
  const loginTimer = setTimeout(() => client.end(), LIMITS.loginTimeoutMs);
  let idleTimer: NodeJS.Timeout | undefined;
  const touch = () => idleTimer?.refresh();

  client.on('authentication', (ctx) => {
    if (ctx.method !== 'password' || tree) return ctx.reject(['password']);
    attempts++;
    void gateway.login(ctx.username, ctx.password, remote).then((r) => {
      if (!r.ok) {
        ctx.reject(['password']);
        // SSH carries no reason with a refusal: a deactivated customer (or one over his session limit) would only
        // be refused again, so the connection ends.
        if (attempts >= LIMITS.loginAttemptsPerConnection || r.reason === 'sessions' || r.reason === 'inactive') client.end();
        return;
      }
      if (closed) return gateway.logout(r.session); // the client left while its password was being checked
      session = r.session;
      ticket?.trust();
      tree = gateway.tree(r.session);
      ctx.accept();
    }).catch((err: unknown) => {
      log.error({ err }, 'sftp login failed');
      client.end();
    });
  });

  client.on('ready', () => {
    clearTimeout(loginTimer);
    idleTimer = setTimeout(() => {
      log.info({ remote }, 'sftp session idle: closed');
      client.end();
    }, LIMITS.idleTimeoutMs);
  });

  client.on('session', (accept) => {
    const ssh = accept();
    // Only the sftp subsystem is offered: ssh2 refuses shell, exec, pty and forwarding requests nobody listens to.
    ssh.on('sftp', (acceptSftp, rejectSftp) => {
      // A few parallel sftp channels are normal (some clients open two); dozens would only multiply open handles.
      if (!tree || aborts.length >= 4) return rejectSftp();
      const sftp = acceptSftp();
      offerLimits(sftp);
      sftp.on('error', (err: Error) => log.debug({ err, remote }, 'sftp channel error'));
      aborts.push(serveSftp(sftp, tree, log, touch));
    });
  });

  client.on('error', (err) => log.debug({ err, remote }, 'sftp connection error'));
  client.on('close', () => {
    closed = true;
    clearTimeout(loginTimer);
    if (idleTimer) clearTimeout(idleTimer);
    void Promise.allSettled(aborts.map((a) => a())).finally(() => {
      if (session !== undefined) gateway.logout(session);
      ended();
    });
  });
  return done;
}

export interface SshServer {
  port: number;
  /** Stop listening, end every connection, and resolve once their uploads are ended. */
  close(): Promise<void>;
}

/** Listen for SSH connections and serve them through the gateway; `onConnection` sees each accepted one (metrics). */
export async function startSshServer(opts: {
  gateway: SftpGateway; log: SessionLog; hostKey: string; host: string; port: number;
  onConnection?: (conn: { once(event: 'close', fn: () => void): unknown }) => void;
}): Promise<SshServer> {
  const { log } = opts;
  // ssh2's Server keeps no list of its connections; a prompt stop needs one.
  const clients = new Set<Connection>();
  const sessions = new Set<Promise<void>>();
  const guard = createConnectionGuard(FILES_GUARD_LIMITS, log);
  const server = new ssh2.Server({ hostKeys: [opts.hostKey], ident: 'order-intake' }, (client, info) => {
    clients.add(client);
    // Each WRITE is answered by a status packet of a few dozen bytes; with Nagle's algorithm those waited for the
    // client's ACKs, and a 50 MiB upload sent its data at 29 instead of 38 MiB/s (npm run bench -- sftp).
    // ssh2's server-side connection has setNoDelay (server.js), but its type declarations leave it out.
    (client as Connection & { setNoDelay(noDelay: boolean): void }).setNoDelay(true);
    client.on('close', () => clients.delete(client));
    // ssh2 keeps the accepted socket as _sock; its typings leave it out.
    const served = handleConnection(opts.gateway, client, info.ip, log, guard.ticketOf((client as unknown as { _sock?: Socket })._sock));
    // A stop waits for these: the uploads of a closed connection are ended (and reported) before the thread exits.
    sessions.add(served);
    void served.then(() => sessions.delete(served));
  });
  // The guard decides which connections are served; ssh2's own bound is only a backstop above it.
  server.maxConnections = 2 * LIMITS.connectionsPerServer;
  const raw = (server as unknown as { _srv: Server })._srv;
  if (opts.onConnection) raw.on('connection', opts.onConnection);
  // Before the SSH identification nothing can be said that a client would show: a refused socket is just closed.
  guard.gate(raw, {
    refuse(socket, reason) {
      log.info({ remote: plainAddress(socket.remoteAddress), reason }, 'sftp connection refused');
      socket.destroy();
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (err: Error) => log.error({ err }, 'sftp server error'));
  return {
    port: (server.address() as { port: number }).port,
    async close() {
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      // Open sessions would keep close() waiting forever; their unfinished uploads are discarded.
      for (const c of clients) c.end();
      await stopped;
      while (sessions.size > 0) await Promise.all([...sessions]);
    },
  };
}
