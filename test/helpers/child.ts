/** Runs `order-intake serve` as a real child process (as an operator would) and reads what it prints. */
import { sharedDnsAddress } from './dns-server.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { nodeArgs } from './node-args.ts';
import { withPostgresKey } from './secret-key.ts';
import { waitFor } from './wait.ts';

export interface ServeProcess {
  proc: ChildProcess;
  httpPort: number;
  /** Every line printed so far on stdout. */
  lines: string[];
  /** Resolves when the process has exited. */
  exited: Promise<number | null>;
}

const root = path.resolve(import.meta.dirname, '../..');

/**
 * Start `serve` and wait for its HTTP port. The timeout only guards against a hang: a cold tsx start on a machine
 * shared with other jobs has been seen to take over 20 s.
 */
export async function spawnServe(dataDir: string, env: Record<string, string> = {}, timeoutMs = 60_000): Promise<ServeProcess> {
  const proc = spawn(process.execPath, [...nodeArgs(path.join(root, 'src/cli/main.ts')), 'serve'], {
    cwd: root,
    env: withPostgresKey({
      ...process.env, INTAKE_DATA_DIR: dataDir, INTAKE_HOST: '127.0.0.1', INTAKE_HTTP_PORT: '0',
      INTAKE_SFTP_PORT: 'off', INTAKE_FTP_PORT: 'off', INTAKE_SMTP_PORT: 'off', INTAKE_DNS_SERVERS: await sharedDnsAddress(), ...env,
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let stderr = '';
  proc.stderr!.on('data', (d: Buffer) => { stderr += d.toString(); });
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  const httpPort = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      // A serve left running would keep the test file from ever ending.
      proc.kill('SIGKILL');
      reject(new Error(`serve did not report its HTTP port within ${timeoutMs} ms\n${lines.join('\n')}\n${stderr}`));
    }, timeoutMs);
    void exited.then((code) => { clearTimeout(timer); reject(new Error(`serve exited with ${code}\n${lines.join('\n')}\n${stderr}`)); });
    createInterface({ input: proc.stdout! }).on('line', (line) => {
      lines.push(line);
      if (!line.startsWith('{')) return;
      try {
        const rec = JSON.parse(line) as { channel?: string; port?: number };
        if (rec.channel === 'http' && typeof rec.port === 'number') {
          clearTimeout(timer);
          resolve(rec.port);
        }
      } catch { /* not a log line */ }
    });
  });
  return { proc, httpPort, lines, exited };
}

/** Wait until a printed line matches. */
export async function waitForLine(p: ServeProcess, re: RegExp, timeoutMs = 10_000): Promise<RegExpMatchArray> {
  try {
    return await waitFor(() => p.lines.map((l) => l.match(re)).find((m) => m !== null) ?? undefined, timeoutMs, `a line matching ${re}`);
  } catch (e) {
    throw new Error(`${(e as Error).message}:\n${p.lines.join('\n')}`, { cause: e });
  }
}

export async function stopServe(p: ServeProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  if (p.proc.exitCode === null && p.proc.signalCode === null) p.proc.kill(signal);
  return p.exited;
}

/** A graceful stop, or SIGKILL after 15 s: clean-up must not hang on an instance that cannot stop. */
export async function stopOrKill(p: ServeProcess): Promise<void> {
  const timer = setTimeout(() => p.proc.kill('SIGKILL'), 15_000);
  await stopServe(p);
  clearTimeout(timer);
}

/** The port a channel reported it bound (`{"channel":"sftp","port":…}`), waiting for the line to be printed. */
export async function loggedPort(p: ServeProcess, channel: string, timeoutMs = 20_000): Promise<number> {
  const logged = (line: string): number | undefined => {
    if (!line.startsWith('{')) return undefined;
    try {
      const rec = JSON.parse(line) as { channel?: string; port?: number };
      return rec.channel === channel && typeof rec.port === 'number' ? rec.port : undefined;
    } catch {
      return undefined; // not a log line
    }
  };
  try {
    return await waitFor(() => p.lines.map(logged).find((port) => port !== undefined), timeoutMs, `the ${channel} port logged`);
  } catch (e) {
    throw new Error(`${(e as Error).message}:\n${p.lines.join('\n')}`, { cause: e });
  }
}
