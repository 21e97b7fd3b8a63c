/** Runs the real `order-intake` CLI as a child process, as an operator would, against a given data directory. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');

export interface CliResult {
  code: number | null;
  stdout: string;
  stdoutBytes: Buffer;
  stderr: string;
}

/** A CLI command that has not finished in this time is hung: fail instead of waiting for the test timeout. */
const TIMEOUT_MS = 30_000;

export function runCli(dataDir: string, args: readonly string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'src/cli/main.ts'), ...args], {
      cwd: root,
      env: { ...process.env, INTAKE_DATA_DIR: dataDir, INTAKE_MAIL_DOMAIN: 'ordini.test', INTAKE_LOG_LEVEL: 'info', ...env },
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
