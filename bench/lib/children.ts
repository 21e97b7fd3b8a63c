/**
 * Child processes of the benchmarks: the service under test, the load generators and the bare-stack ceiling each
 * run in their own process, so the figures of one are not the event-loop stalls of another.
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../..');

/** Every child still running, so an interrupted benchmark (Ctrl-C) can stop them rather than leave them behind. */
const live = new Set<ChildProcess>();

export function track(child: ChildProcess): ChildProcess {
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}

export function killAllChildren(): void {
  for (const c of live) c.kill('SIGKILL');
}

/** Starts a TypeScript module of bench/ as a child with an IPC channel; its stderr goes to ours. */
export function forkTs(file: string, extraExecArgv: string[] = [], env: NodeJS.ProcessEnv = process.env): ChildProcess {
  return track(fork(path.resolve(ROOT, file), [], {
    cwd: ROOT,
    execArgv: [...extraExecArgv, '--import', 'tsx'],
    env,
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  }));
}

/** Starts a JavaScript module with plain node (no tsx loader in the process), with an IPC channel; its stderr goes to ours. */
export function forkPlain(file: string, extraExecArgv: string[] = []): ChildProcess {
  return track(fork(path.resolve(ROOT, file), [], { cwd: ROOT, execArgv: extraExecArgv, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] }));
}

/** The first IPC message of a child, or an error if it exits or stays silent longer than timeoutMs. */
export function nextMessage<T>(child: ChildProcess, timeoutMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    const onMessage = (m: unknown) => {
      done();
      const err = (m as { error?: unknown } | null)?.error;
      if (typeof err === 'string') reject(new Error(err));
      else resolve(m as T);
    };
    const onExit = (code: number | null, signal: string | null) => {
      done();
      reject(new Error(`child ${child.spawnfile} exited (${code ?? signal}) before answering`));
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`child gave no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

/** Sends one request and waits for the answer. */
export async function ask<T>(child: ChildProcess, message: unknown, timeoutMs: number): Promise<T> {
  const answer = nextMessage<T>(child, timeoutMs);
  child.send(message as object);
  return answer;
}

/**
 * Stops a child: first `waitFirstMs` for it to exit on its own (a child that has answered exits by itself, and a
 * signal would cut short what it writes on exit, such as a --cpu-prof profile), then SIGTERM, then SIGKILL if it
 * has not exited within graceMs. Resolves with its exit code.
 */
export async function stopChild(child: ChildProcess, graceMs = 10_000, waitFirstMs = 0): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let timer: NodeJS.Timeout | undefined;
  if (waitFirstMs > 0) {
    const waited = await Promise.race([exited.then(() => true), new Promise<false>((r) => { timer = setTimeout(() => r(false), waitFirstMs); })]);
    clearTimeout(timer);
    if (waited) return child.exitCode;
  }
  child.kill('SIGTERM');
  timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  try {
    return await exited;
  } finally {
    clearTimeout(timer);
  }
}

/** A child that answers once and exits: ask, then let it exit by itself (or stop it if it does not). */
export async function askOnce<T>(file: string, message: unknown, timeoutMs: number, extraExecArgv: string[] = [], opts: { plain?: boolean } = {}): Promise<T> {
  const child = opts.plain ? forkPlain(file, extraExecArgv) : forkTs(file, extraExecArgv);
  try {
    return await ask<T>(child, message, timeoutMs);
  } finally {
    await stopChild(child, 10_000, 10_000);
  }
}
