// `serve` logs human lines (pino-pretty) to a terminal and JSON lines to anything else. The terminal is a real
// pseudo-terminal made by util-linux `script`; the pipe is how systemd, Docker and the other tests run it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { spawnServe, stopServe, waitForLine } from '../helpers/child.ts';
import { tempDir } from '../helpers/service.ts';
import { nodeArgs } from '../helpers/node-args.ts';
import { waitUntil } from '../helpers/wait.ts';

const root = path.resolve(import.meta.dirname, '../..');
const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const LISTENING = /HTTP \(REST, SOAP, docs\) listening on port \d+/;

test('on a terminal the log lines are for people', async () => {
  const dir = tempDir();
  dirs.push(dir);
  const command = [process.execPath, ...nodeArgs('src/cli/main.ts'), 'serve'].join(' ');
  const p = spawn('script', ['-qfec', command, '/dev/null'], {
    cwd: root,
    env: {
      ...process.env, INTAKE_DATA_DIR: dir, INTAKE_HOST: '127.0.0.1', INTAKE_HTTP_PORT: '0', INTAKE_SFTP_PORT: 'off',
      INTAKE_FTP_PORT: 'off', INTAKE_SMTP_PORT: 'off', INTAKE_LOG_FORMAT: '',
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  p.stdout.on('data', (d: Buffer) => { out += d.toString('utf8'); });
  const exited = new Promise<number | null>((resolve) => p.on('exit', (code) => resolve(code)));
  try {
    await waitUntil(() => LISTENING.test(out), 'the listening line', 30_000).catch((e: Error) => { throw new Error(`${e.message}:\n${out}`, { cause: e }); });
    // eslint-disable-next-line no-control-regex
    const plain = out.replace(/\x1b\[[0-9;]*m/g, '');
    const line = plain.split(/\r?\n/).find((l) => LISTENING.test(l))!;
    assert.match(line, /^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO.*: HTTP \(REST, SOAP, docs\) listening on port \d+/, line);
    assert.ok(!plain.split(/\r?\n/).some((l) => l.trimStart().startsWith('{"level"')), `no JSON line on a terminal:\n${plain}`);
  } finally {
    p.stdin.write('\x03'); // Ctrl-C on the terminal: SIGINT to serve, which stops cleanly
    await exited;
  }
});

test('on a pipe every log line is one JSON object', async () => {
  const dir = tempDir();
  dirs.push(dir);
  const serve = await spawnServe(dir, { INTAKE_LOG_FORMAT: '' });
  try {
    await waitForLine(serve, /"msg":"service ready"/);
    const logLines = serve.lines.filter((l) => l.includes('"level"'));
    assert.ok(logLines.length >= 2);
    for (const l of logLines) assert.equal(typeof (JSON.parse(l) as { msg?: string }).msg, 'string', l);
    assert.ok(logLines.some((l) => LISTENING.test(l)));
  } finally {
    assert.equal(await stopServe(serve), 0);
  }
});
