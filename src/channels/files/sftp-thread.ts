/**
 * The SFTP thread: the SSH server, the SFTP protocol and the spool writes of uploads, in a worker thread with its
 * own heap. Every SSH packet arrives in buffers outside the JavaScript heap, and each full collection they provoke
 * marks the whole heap of the thread they arrive in: in the main thread that is the service's ~35 MB, in this one a
 * few MB (bench/files/ssh-heap-experiment.ts measured ~3× less CPU per upload here).
 *
 * Everything that needs the store or the service's shared state is asked of the main thread (sftp.ts) by message:
 * login, the tree, the commit of an upload, whose CLOSE is answered only after the main thread has committed it.
 * Log lines and connection counts are sent there too, so the service's log and /metrics look as they did.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Caller, toWire, type LoginAnswer, type MainToThread, type SftpThreadData, type ThreadToMain, type TreeCalls, type TreeMethod } from './sftp-messages.ts';
import { startSshServer, type SessionLog, type SftpGateway, type SftpTree, type SshServer } from './sftp-session.ts';
import { openUpload } from './upload-writer.ts';

const port = parentPort!;
const data = workerData as SftpThreadData;
const post = (m: ThreadToMain) => port.postMessage(m);
const caller = new Caller(post);

/** pino's numbers for the levels the protocol uses. */
const LEVELS = { debug: 20, info: 30, warn: 40, error: 50 } as const;

function send(level: keyof typeof LEVELS, obj: object, msg: string): void {
  if (LEVELS[level] < data.logLevel) return;
  try {
    post({ type: 'log', level, obj, msg });
  } catch {
    // Something in obj cannot be copied to another thread (a socket, a function): the line still gets out.
    post({ type: 'log', level, obj: { detail: String((obj as { err?: unknown }).err ?? '') }, msg });
  }
}

const log: SessionLog = {
  debug: (obj, msg) => send('debug', obj, msg),
  info: (obj, msg) => send('info', obj, msg),
  warn: (obj, msg) => send('warn', obj, msg),
  error: (obj, msg) => send('error', obj, msg),
};

function treeCall<M extends TreeMethod>(session: number, method: M, ...args: TreeCalls[M]['args']): Promise<TreeCalls[M]['result']> {
  return caller.call({ op: 'tree', session, method, args });
}

const gateway: SftpGateway = {
  login: (user, password, remote) => caller.call<LoginAnswer>({ op: 'login', user, password, remote }),
  logout: (session) => post({ type: 'logout', session }),
  tree(session): SftpTree {
    return {
      stat: (p) => treeCall(session, 'stat', p),
      list: (p) => treeCall(session, 'list', p),
      // A Buffer arrives as a plain Uint8Array; the protocol slices it as a Buffer (no copy).
      read: async (p) => {
        const u = await treeCall(session, 'read', p);
        return Buffer.from(u.buffer, u.byteOffset, u.byteLength);
      },
      rename: (from, to) => treeCall(session, 'rename', from, to),
      remove: (p) => treeCall(session, 'remove', p),
      setAttributes: (p) => treeCall(session, 'setAttributes', p),
      mkdir: () => treeCall(session, 'mkdir'),
      rmdir: () => treeCall(session, 'rmdir'),
      async upload(p, opts) {
        const { id, plan } = await treeCall(session, 'beginUpload', p, opts);
        // Written here; copied into the store as it arrives and ended (for a final name, committed) by the main thread.
        return openUpload(plan, (end) => treeCall(session, 'endUpload', id, end), (bytes) => {
          treeCall(session, 'uploadProgress', id, bytes).catch((err: unknown) => log.warn({ err }, 'upload progress not delivered'));
        });
      },
    };
  },
};

let nextConnection = 1;
let server: SshServer | undefined;

port.on('message', (m: MainToThread) => {
  if (m.type === 'answer') return caller.answer(m);
  if (m.type === 'close') {
    void (server?.close() ?? Promise.resolve()).finally(() => {
      post({ type: 'closed' });
      port.close();
    });
  }
});

try {
  server = await startSshServer({
    gateway, log, hostKey: data.hostKey, host: data.host, port: data.port,
    onConnection(conn) {
      const id = nextConnection++;
      post({ type: 'connection', id, open: true });
      conn.once('close', () => post({ type: 'connection', id, open: false }));
    },
  });
  post({ type: 'listening', port: server.port });
} catch (err) {
  post({ type: 'failed', error: toWire(err) });
  port.close();
}
