/**
 * Runs the `order-intake` CLI against a given data directory, two ways:
 * - `runCli`: in this process, through the same `runCli` that bin/order-intake.js calls, with its own environment,
 *   stdout, stderr and exit status. Starting a child costs a second or more of tsx start-up per command, and most
 *   tests are about what a command does, not about how a process starts.
 * - `spawnCli`: the real binary as a child process, as an operator would run it. Kept for the tests that are about
 *   the process itself: exit status, output streams, a stack trace or its absence (a few in test/cli/cli.test.ts,
 *   and every test that starts `serve`, through test/helpers/child.ts).
 */
import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { runCli as runProgram } from '../../src/cli/program.ts';
import { nodeArgs } from '../helpers/node-args.ts';

const root = path.resolve(import.meta.dirname, '../..');

export interface CliResult {
  code: number | null;
  stdout: string;
  stdoutBytes: Buffer;
  stderr: string;
}

/** A CLI command that has not finished in this time is hung: fail instead of waiting for the test timeout. */
const TIMEOUT_MS = 30_000;

function cliEnv(dataDir: string, env: Record<string, string>): Record<string, string> {
  return { INTAKE_DATA_DIR: dataDir, INTAKE_MAIL_DOMAIN: 'ordini.test', INTAKE_LOG_LEVEL: 'info', ...env };
}

export function spawnCli(dataDir: string, args: readonly string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs(path.join(root, 'src/cli/main.ts')), ...args], {
      cwd: root,
      env: { ...process.env, ...cliEnv(dataDir, env) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`order-intake ${args.join(' ')} did not finish within ${TIMEOUT_MS} ms`));
    }, TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const stdoutBytes = Buffer.concat(out);
      resolve({ code, stdout: stdoutBytes.toString('utf8'), stdoutBytes, stderr: Buffer.concat(err).toString('utf8') });
    });
  });
}

// ---- in-process ----------------------------------------------------------------------------------------------

/** What one in-process command has written, and whether it has "exited". */
interface Run {
  out: Buffer[];
  err: Buffer[];
  exitCode: number | undefined;
}

/** Thrown by the stand-in for process.exit: unwinds the command the way the real exit ends the process. */
class Exited extends Error {
  constructor(readonly code: number) {
    super(`process.exit(${code})`);
  }
}

/**
 * The command's own writes and exit are told apart from everyone else's (the test runner reports on this
 * process's stdout) by the asynchronous context they run in: only code started by `runCli` sees a Run.
 */
const current = new AsyncLocalStorage<Run>();
let installed = false;

function install(): void {
  if (installed) return;
  installed = true;
  const capture = (stream: NodeJS.WriteStream, pick: (r: Run) => Buffer[]) => {
    const original = stream.write.bind(stream) as (...a: unknown[]) => boolean;
    stream.write = ((chunk: unknown, encoding?: unknown, cb?: unknown) => {
      const run = current.getStore();
      if (!run) return original(chunk, encoding, cb);
      const done = typeof encoding === 'function' ? encoding : cb;
      // After exit a real process writes nothing more.
      if (run.exitCode === undefined) {
        pick(run).push(typeof chunk === 'string' ? Buffer.from(chunk, typeof encoding === 'string' ? encoding as BufferEncoding : 'utf8') : Buffer.from(chunk as Uint8Array));
      }
      if (typeof done === 'function') process.nextTick(done as () => void);
      return true;
    }) as typeof stream.write;
  };
  capture(process.stdout, (r) => r.out);
  capture(process.stderr, (r) => r.err);
  const exit = process.exit.bind(process);
  process.exit = ((code?: number | string | null) => {
    const run = current.getStore();
    if (!run) return exit(code);
    run.exitCode ??= Number(code ?? process.exitCode ?? 0);
    throw new Exited(run.exitCode);
  }) as typeof process.exit;
}

/** One command at a time: the environment and process.exitCode are the process's own. */
let queue: Promise<unknown> = Promise.resolve();

export function runCli(dataDir: string, args: readonly string[], env: Record<string, string> = {}): Promise<CliResult> {
  const result = queue.then(() => runInProcess(dataDir, args, env));
  queue = result.catch(() => undefined);
  return result;
}

async function runInProcess(dataDir: string, args: readonly string[], env: Record<string, string>): Promise<CliResult> {
  install();
  const overlay = cliEnv(dataDir, env);
  const saved = new Map(Object.keys(overlay).map((k) => [k, process.env[k]]));
  Object.assign(process.env, overlay);
  const savedExitCode = process.exitCode;
  process.exitCode = undefined;
  const run: Run = { out: [], err: [], exitCode: undefined };
  let timer: NodeJS.Timeout | undefined;
  try {
    const finished = current.run(run, () => runProgram([process.execPath, 'order-intake', ...args]));
    const hung = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`order-intake ${args.join(' ')} did not finish within ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
    });
    await Promise.race([finished, hung]).catch((err: unknown) => {
      if (!(err instanceof Exited)) throw err;
    });
    const code = run.exitCode ?? Number(process.exitCode ?? 0);
    const stdoutBytes = Buffer.concat(run.out);
    return { code, stdout: stdoutBytes.toString('utf8'), stdoutBytes, stderr: Buffer.concat(run.err).toString('utf8') };
  } finally {
    clearTimeout(timer);
    run.exitCode ??= -1; // a write that comes after the command has returned is not its output
    process.exitCode = savedExitCode;
    for (const [k, v] of saved) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

/** The command succeeded (exit 0); its output is in the message when it did not. */
export function ok(r: CliResult): CliResult {
  assert.equal(r.code, 0, `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r;
}

/** The command failed as an operator should see it: exit 1, one `error:` line matching `message`, no stack trace. */
export function failed(r: CliResult, message: RegExp): void {
  assert.equal(r.code, 1, `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  assert.match(r.stderr, /^error: /);
  assert.match(r.stderr, message);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
}
