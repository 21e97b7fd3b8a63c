/**
 * The messages between the SFTP thread (sftp-thread.ts: SSH, the protocol, the spool writes) and the main thread
 * (sftp.ts: login, the tree over the store, the commit of an upload). The thread asks, the main thread answers:
 * each call carries an id, its answer the same id, and the thread gives up on an answer after a timeout (so nothing
 * waits for ever on a main thread that lost a call). A refusal travels as its kind and Italian text and is thrown
 * again as the same TreeError, so the SFTP status and the words the client sees do not depend on the thread.
 */
import type { Entry, TreeErrorKind, UploadEnd, UploadOptions, UploadPlan } from './tree-model.ts';
import { TreeError } from './tree-model.ts';
import { LIMITS } from './limits.ts';
import type { LoginResult } from './login.ts';

/** Given to the thread at start. The host key is PEM text; the config was validated by the main thread. */
export interface SftpThreadData {
  hostKey: string;
  host: string;
  port: number;
  /** pino's numeric level of the service's logger: lines below it are not sent at all. */
  logLevel: number;
}

/** The tree methods the thread may call, with their arguments and answers. */
export interface TreeCalls {
  stat: { args: [path: string]; result: Entry };
  list: { args: [path: string]; result: Entry[] };
  read: { args: [path: string]; result: Uint8Array };
  rename: { args: [from: string, to: string]; result: void };
  remove: { args: [path: string]; result: void };
  setAttributes: { args: [path: string]; result: void };
  mkdir: { args: []; result: never };
  rmdir: { args: []; result: never };
  beginUpload: { args: [path: string, opts: UploadOptions]; result: { id: number; plan: UploadPlan } };
  endUpload: { args: [id: number, end: UploadEnd]; result: void };
  uploadProgress: { args: [id: number, bytes: number]; result: void };
}
export type TreeMethod = keyof TreeCalls;
export const TREE_METHODS: readonly TreeMethod[] = ['stat', 'list', 'read', 'rename', 'remove', 'setAttributes', 'mkdir', 'rmdir', 'beginUpload', 'endUpload', 'uploadProgress'];

export type LoginAnswer = { ok: true; session: number } | { ok: false; reason: Extract<LoginResult, { ok: false }>['reason'] };

export type Call =
  | { op: 'login'; user: string; password: string; remote: string }
  | { op: 'tree'; session: number; method: TreeMethod; args: unknown[] };

/** A failure as it crosses: a TreeError keeps its kind (the SFTP status) and text; anything else is an internal error. */
export interface WireError {
  tree?: TreeErrorKind;
  name: string;
  message: string;
  stack?: string;
}

export type ThreadToMain =
  | { type: 'call'; id: number; call: Call }
  | { type: 'logout'; session: number }
  | { type: 'log'; level: 'debug' | 'info' | 'warn' | 'error'; obj: object; msg: string }
  /** A TCP connection admitted (open) or gone, for the open-connections gauge. */
  | { type: 'connection'; id: number; open: boolean }
  | { type: 'listening'; port: number }
  | { type: 'failed'; error: WireError }
  /** Asked to close: every connection ended and its uploads reported; the thread exits next. */
  | { type: 'closed' };

export type MainToThread =
  | { type: 'answer'; id: number; ok: true; value: unknown }
  | { type: 'answer'; id: number; ok: false; error: WireError }
  | { type: 'close' };

export function toWire(err: unknown): WireError {
  if (err instanceof TreeError) return { tree: err.kind, name: err.name, message: err.message };
  const e = err instanceof Error ? err : new Error(String(err));
  return { name: e.name, message: e.message, stack: e.stack };
}

export function fromWire(w: WireError): Error {
  if (w.tree) return new TreeError(w.tree, w.message);
  const e = new Error(w.message);
  e.name = w.name;
  if (w.stack) e.stack = w.stack;
  return e;
}

/**
 * How long the thread waits for an answer. A login includes the failed-login delay and password hashing under a
 * flood of logins; the commit of an upload may wait for room in the memory budget (LIMITS.budgetWaitMs) before its
 * store write. A call past its time is answered to the client as an internal error, as a dropped connection would be:
 * what the main thread does with it later is never acknowledged.
 */
export const CALL_TIMEOUT_MS = { login: 60_000, tree: 60_000, commit: LIMITS.budgetWaitMs + 120_000 } as const;

export function timeoutOf(call: Call): number {
  if (call.op === 'login') return CALL_TIMEOUT_MS.login;
  if (call.method === 'endUpload' && (call.args[1] as UploadEnd).kind === 'done') return CALL_TIMEOUT_MS.commit;
  return CALL_TIMEOUT_MS.tree;
}

/** The thread's side of the calls: ids, the answers they wait for, and their timeouts. */
export class Caller {
  #next = 1;
  readonly #waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();

  constructor(private readonly post: (m: ThreadToMain) => void) {}

  call<T>(call: Call): Promise<T> {
    const id = this.#next++;
    return new Promise<T>((resolve, reject) => {
      const ms = timeoutOf(call);
      const timer = setTimeout(() => {
        this.#waiting.delete(id);
        reject(new Error(`the main thread did not answer ${call.op === 'tree' ? call.method : call.op} within ${ms} ms`));
      }, ms);
      this.#waiting.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      this.post({ type: 'call', id, call });
    });
  }

  answer(m: Extract<MainToThread, { type: 'answer' }>): void {
    const w = this.#waiting.get(m.id);
    if (!w) return; // timed out meanwhile
    this.#waiting.delete(m.id);
    clearTimeout(w.timer);
    if (m.ok) w.resolve(m.value);
    else w.reject(fromWire(m.error));
  }
}
