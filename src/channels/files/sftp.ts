/**
 * The SFTP channel, main thread side. The SSH server, the protocol and the spool writes run in the SFTP thread
 * (sftp-thread.ts, protocol in sftp-session.ts); this side answers what needs the store or state shared with FTP:
 * password login (the authenticator's lockouts, the per-customer session limit), the tree (listings, reads, renames,
 * removals) and the commit of a finished upload, whose CLOSE the thread answers only after this side has committed
 * it (durable before acknowledged). It also writes the thread's log lines and counts its connections.
 *
 * If the thread dies (a bug, out of memory), nothing acknowledged is lost: an upload is acknowledged only after this
 * side committed it. Its connections are gone, as after a network cut; their sessions and unfinished uploads are
 * released here, and the thread is started again on the same port so that clients can reconnect. A thread that dies
 * MAX_RESTARTS times within RESTART_WINDOW_MS is not started again: the channel stays down, logged at fatal level,
 * rather than flapping (an operator must look; the other channels keep working).
 */
import { EventEmitter } from 'node:events';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Logger } from '../../log.ts';
import { passwordLogin, type LoginDeps } from './login.ts';
import { TREE_METHODS, fromWire, toWire, type Call, type LoginAnswer, type MainToThread, type SftpThreadData, type ThreadToMain } from './sftp-messages.ts';
import { createTree, type FileTree } from './tree.ts';
import type { FilesDeps } from './tree-model.ts';
import type { HostKey } from './host-key.ts';

export interface SftpDeps extends FilesDeps, LoginDeps {
  hostKey: HostKey;
}

export interface RunningServer {
  port: number;
  close(): Promise<void>;
  /**
   * Re-read the TLS certificate and key (SIGHUP), for servers that speak TLS (FTP's AUTH TLS): sessions already
   * secured keep theirs, every handshake from then on gets the new ones. Throws, keeping the old ones, if unusable.
   */
  reloadTls?(): Promise<void>;
}

/** Deaths of the thread tolerated within RESTART_WINDOW_MS before the channel is left down. */
const MAX_RESTARTS = 3;
const RESTART_WINDOW_MS = 60_000;
/** close() waits this long for the thread to end its connections and report their uploads, then stops it. */
const CLOSE_TIMEOUT_MS = 30_000;

/**
 * The thread, from its module next to this one with the same extension: .js once built; .ts when the service runs
 * from source under tsx, whose loader a worker does not inherit in Node 20, so it is registered there first (as the
 * SQLite write thread does, src/store/sqlite/offload.ts).
 */
function startThread(data: SftpThreadData): Worker {
  const ext = extname(fileURLToPath(import.meta.url));
  const url = new URL(`./sftp-thread${ext}`, import.meta.url);
  if (ext !== '.ts') return new Worker(url, { workerData: data });
  const tsx = import.meta.resolve('tsx/esm/api');
  return new Worker(`import(${JSON.stringify(tsx)}).then((t) => { t.register(); return import(${JSON.stringify(url.href)}); })`,
    { eval: true, workerData: data });
}

interface Session { tree: FileTree; release: () => void }

/** Login and the tree for the thread's sessions. */
function createSessions(deps: SftpDeps) {
  const sessions = new Map<number, Session>();
  let next = 1;

  async function answer(call: Call): Promise<unknown> {
    if (call.op === 'login') {
      const r = await passwordLogin(deps, call.user, call.password, call.remote, 'sftp');
      if (!r.ok) return { ok: false, reason: r.reason } satisfies LoginAnswer;
      const id = next++;
      const tree = createTree(deps, { principal: r.principal, channel: 'sftp', remote: call.remote, user: call.user });
      sessions.set(id, { tree, release: r.release });
      return { ok: true, session: id } satisfies LoginAnswer;
    }
    const s = sessions.get(call.session);
    if (!s) throw new Error(`no SFTP session ${call.session}`);
    if (!TREE_METHODS.includes(call.method)) throw new Error(`not a tree call: ${String(call.method)}`);
    const f = s.tree[call.method] as (...a: unknown[]) => Promise<unknown>;
    return f(...call.args);
  }

  async function logout(id: number, reason: string): Promise<void> {
    const s = sessions.get(id);
    if (!s) return;
    sessions.delete(id);
    // The thread ends its uploads before it logs out; what it could not end (it died) is ended here.
    await s.tree.abandonUploads(reason).finally(() => s.release());
  }

  return {
    answer,
    logout,
    async logoutAll(reason: string) {
      await Promise.all([...sessions.keys()].map((id) => logout(id, reason)));
    },
  };
}

export interface SftpServer extends RunningServer {
  /** Tests: stop the thread at once, as a crash of it would (it is started again as after a crash). */
  killThread(): Promise<void>;
}

export async function startSftpServer(deps: SftpDeps, opts: { host: string; port: number }): Promise<SftpServer> {
  const log = deps.log.child({ channel: 'sftp' });
  const sessions = createSessions(deps);
  // The gauge of open connections listens to an emitter, as it does to a net.Server: the thread's are mirrored here.
  const connections = new EventEmitter();
  deps.metrics?.trackConnections('sftp', connections);
  const open = new Map<number, EventEmitter>();
  const deaths: number[] = [];
  let worker: Worker | undefined;
  let closing: Promise<void> | undefined;
  let boundPort = opts.port;

  function onMessage(w: Worker, m: ThreadToMain): void {
    switch (m.type) {
      case 'call': {
        const reply = (a: MainToThread) => {
          // Only to the thread that asked: a new thread never sees an answer meant for a dead one.
          if (worker === w) w.postMessage(a);
        };
        sessions.answer(m.call).then(
          (value) => reply({ type: 'answer', id: m.id, ok: true, value }),
          (err: unknown) => reply({ type: 'answer', id: m.id, ok: false, error: toWire(err) }),
        );
        return;
      }
      case 'logout':
        void sessions.logout(m.session, 'connection closed');
        return;
      case 'log':
        (log as Logger)[m.level](m.obj, m.msg);
        return;
      case 'connection': {
        if (m.open) {
          const conn = new EventEmitter();
          open.set(m.id, conn);
          connections.emit('connection', conn);
        } else {
          open.get(m.id)?.emit('close');
          open.delete(m.id);
        }
        return;
      }
      default:
    }
  }

  /** Start a thread and wait for it to listen; rejects with its start error (the port taken, say). */
  function spawn(port: number): Promise<Worker> {
    const w = startThread({ hostKey: deps.hostKey.privateKey, host: opts.host, port, logLevel: log.levelVal });
    return new Promise<Worker>((resolve, reject) => {
      let started = false;
      let reason: Error | undefined;
      w.on('message', (m: ThreadToMain) => {
        if (m.type === 'listening') {
          started = true;
          boundPort = m.port;
          resolve(w);
        } else if (m.type === 'failed') {
          reject(fromWire(m.error));
        } else {
          onMessage(w, m);
        }
      });
      w.on('error', (err) => {
        reason = err;
        log.error({ err }, 'the SFTP thread failed');
      });
      w.on('exit', (code) => {
        if (!started) return reject(reason ?? new Error(`the SFTP thread exited (code ${code}) before listening`));
        if (worker === w) void died(w, code, reason);
      });
    });
  }

  async function died(w: Worker, code: number, reason: Error | undefined): Promise<void> {
    worker = undefined;
    for (const conn of open.values()) conn.emit('close');
    open.clear();
    if (closing) return;
    log.error({ code, err: reason }, 'the SFTP thread stopped: its connections are closed, their unfinished uploads discarded');
    await sessions.logoutAll('the SFTP thread stopped');
    const now = Date.now();
    deaths.push(now);
    while (deaths.length > 0 && deaths[0]! < now - RESTART_WINDOW_MS) deaths.shift();
    if (deaths.length >= MAX_RESTARTS) {
      // Loud on purpose: SFTP is down until the service is restarted.
      log.fatal({ deaths: deaths.length, windowSeconds: RESTART_WINDOW_MS / 1000 }, 'the SFTP thread keeps dying: SFTP is off until the service is restarted');
      return;
    }
    try {
      worker = await spawn(boundPort);
      log.info({ port: boundPort }, 'the SFTP thread was started again');
    } catch (err) {
      log.fatal({ err }, 'the SFTP thread could not be started again: SFTP is off until the service is restarted');
    }
  }

  worker = await spawn(opts.port);
  const port = boundPort;
  log.info({ port, fingerprint: deps.hostKey.fingerprint }, `SFTP listening on port ${port}, host key ${deps.hostKey.fingerprint}`);
  return {
    port,
    async killThread() {
      await worker?.terminate();
    },
    close() {
      closing ??= (async () => {
        const w = worker;
        if (w) {
          // The thread ends every connection and reports their uploads (answered here meanwhile), then says so.
          const exited = new Promise<void>((resolve) => w.once('exit', () => resolve()));
          const closed = new Promise<void>((resolve) => w.on('message', (m: ThreadToMain) => m.type === 'closed' && resolve()));
          w.postMessage({ type: 'close' } satisfies MainToThread);
          const timer = setTimeout(() => {
            log.warn({ timeoutMs: CLOSE_TIMEOUT_MS }, 'the SFTP thread did not close in time: stopped');
            void w.terminate();
          }, CLOSE_TIMEOUT_MS);
          await Promise.race([closed, exited]);
          clearTimeout(timer);
          await w.terminate();
          await exited;
        }
        await sessions.logoutAll('the service is stopping');
      })();
      return closing;
    },
  };
}
