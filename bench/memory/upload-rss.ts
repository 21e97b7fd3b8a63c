/**
 * Memory of the service per upload (issue 19, item 11): RSS of `order-intake serve` before and at its peak while
 * FTP uploads of large CSV files are received, stored and judged. Not a timed test: it prints what it measured.
 *
 *   node --import tsx bench/memory/upload-rss.ts [--mb 100] [--files 6] [--root DIR] [--budget BYTES]
 *
 * --root runs the service of another checkout (its src/cli/main.ts), to measure the code before a change on the same
 * machine; --budget sets INTAKE_UPLOAD_MEMORY_BYTES. The peak is the kernel's high-water mark of the service's
 * resident set (VmHWM in /proc/PID/status), read after every file was judged. Everything runs on 127.0.0.1 in a
 * temporary folder removed at the end; each upload and the wait for judging are bounded in time.
 */
import { spawn } from 'node:child_process';
import { createReadStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { Client as FtpClient } from 'basic-ftp';
import { CSV_HEADER, csvRows } from '../lib/orders.ts';

const { values } = parseArgs({
  options: { mb: { type: 'string', default: '100' }, files: { type: 'string', default: '6' }, root: { type: 'string' }, budget: { type: 'string' } },
});
const MB = Number(values.mb);
const FILES = Number(values.files);
if (!(MB > 0 && MB <= 100) || !(Number.isInteger(FILES) && FILES >= 1 && FILES <= 10)) throw new Error('--mb 1-100, --files 1-10');
const ROOT = path.resolve(values.root ?? path.join(import.meta.dirname, '../..'));
/** Bound on the whole run: uploads and judging of the largest case take a few minutes here. */
const DEADLINE_MS = 20 * 60_000;

function status(pid: number): { rss: number; hwm: number } {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

const mib = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MiB`;

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'intake-rss-'));
  const started = Date.now();
  const files: string[] = [];
  // Orders of 20 lines, numbered per file, until the file reaches the size asked for.
  for (let f = 0; f < FILES; f++) {
    const parts = [CSV_HEADER];
    let size = CSV_HEADER.length;
    for (let o = 0; size < MB * 1024 * 1024; o++) {
      const rows = csvRows(`RSS-${f}-${o}`, 20);
      parts.push(rows);
      size += rows.length;
    }
    const file = path.join(dir, `big-${f}.csv`);
    writeFileSync(file, parts.join(''));
    files.push(file);
  }
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli/main.ts'), 'serve'], {
    cwd: ROOT,
    env: {
      ...process.env, INTAKE_DATA_DIR: path.join(dir, 'data'), INTAKE_HOST: '127.0.0.1', INTAKE_HTTP_PORT: '0', INTAKE_SFTP_PORT: 'off',
      INTAKE_FTP_PORT: '0', INTAKE_SMTP_PORT: 'off', INTAKE_LOG_LEVEL: 'info', INTAKE_FTP_PASV_RANGE: '31000-31099',
      ...(values.budget ? { INTAKE_UPLOAD_MEMORY_BYTES: values.budget } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let port: number | undefined;
  let user: string | undefined;
  let password: string | undefined;
  let processed = 0;
  createInterface({ input: proc.stderr! }).on('line', () => undefined);
  createInterface({ input: proc.stdout! }).on('line', (line) => {
    if (line.includes('"submission processed"')) processed++;
    const rec = line.startsWith('{') ? (JSON.parse(line) as Record<string, unknown>) : undefined;
    if (rec?.channel === 'ftp' && typeof rec.port === 'number') port = rec.port;
    const u = /FTP\/SFTP user:\s*(\S+)/i.exec(line) ?? /"ftpUser":"([^"]+)"/.exec(line);
    const p = /password:\s*(\S+)/i.exec(line) ?? /"ftpPassword":"([^"]+)"/.exec(line);
    if (u) user = u[1];
    if (p) password = p[1];
  });
  try {
    const until = async (what: string, check: () => boolean) => {
      while (!check()) {
        if (Date.now() - started > DEADLINE_MS) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    await until('the service to start', () => port !== undefined && user !== undefined && password !== undefined);
    await new Promise((r) => setTimeout(r, 2000)); // let start-up garbage be collected before the baseline
    const before = status(proc.pid!);
    await Promise.all(files.map(async (file, i) => {
      const client = new FtpClient(DEADLINE_MS);
      await client.access({ host: '127.0.0.1', port, user, password });
      try {
        await client.uploadFrom(createReadStream(file), `/ordini/big-${i}.csv`);
      } finally {
        client.close();
      }
    }));
    await until('every file to be judged', () => processed >= FILES);
    const after = status(proc.pid!);
    const perFile = (after.hwm - before.rss) / FILES;
    console.log(JSON.stringify({
      root: ROOT, files: FILES, mibPerFile: MB, budget: values.budget ?? 'default',
      rssBefore: mib(before.rss), peakRss: mib(after.hwm), peakGrowth: mib(after.hwm - before.rss),
      growthPerFileOverSize: Number((perFile / (MB * 1024 * 1024)).toFixed(2)), seconds: Math.round((Date.now() - started) / 1000),
    }));
  } finally {
    proc.kill('SIGTERM');
    await new Promise((r) => proc.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
