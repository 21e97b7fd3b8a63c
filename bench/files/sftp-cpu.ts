/**
 * What one 50 MiB SFTP upload costs the service, counted rather than timed (issue 16 target 5): CPU seconds of the
 * service process (all its threads, /proc/<pid>/stat) from the first byte to the CLOSE acknowledgement, and the
 * mark-compact (full) collections of its main thread and of its other threads meanwhile (--trace-gc, told apart by
 * the isolate address each line carries; the main thread's isolate prints first). Counts hold on a loaded machine,
 * where throughput does not. The file is not an order file (the letters A..x), so judging it after the
 * acknowledgement is short and does not run into the next upload's figures. The service's RSS is printed after start and at the end.
 *
 *   node --import tsx bench/files/sftp-cpu.ts [uploads] [--compiled]   # default 3 uploads in a row to one service;
 *                                                                       # --compiled runs dist/ (npm run build first)
 */
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { askOnce } from '../lib/children.ts';
import { startService } from '../lib/service.ts';
import type { BigUploadResult } from './protocol.ts';

const MIB = 2 ** 20;

const cpuSeconds = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
};

const uploads = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 3);
const compiled = process.argv.includes('--compiled');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'sftp-cpu-'));
const file = path.join(tmp, 'upload.bin');
const fd = openSync(file, 'w');
for (let i = 0; i < 50; i++) writeSync(fd, Buffer.alloc(MIB, 65 + i));
closeSync(fd);
/** Mark-compact collections by isolate address, in the order the isolates first printed. */
const fullGcs = new Map<string, number>();
const svc = await startService({
  dataDir: path.join(tmp, 'data'), compiled, env: { INTAKE_SFTP_PORT: '0' }, waitForPorts: ['sftp'], nodeArgs: ['--trace-gc'],
  onOtherLine(line) {
    const m = /^\[\d+:(0x[0-9a-f]+)\]/.exec(line);
    if (!m) return;
    if (!fullGcs.has(m[1]!)) fullGcs.set(m[1]!, 0);
    if (line.includes('Mark-Compact')) fullGcs.set(m[1]!, fullGcs.get(m[1]!)! + 1);
  },
});
const split = () => {
  const [main = 0, ...others] = [...fullGcs.values()];
  return { main, others: others.reduce((a, b) => a + b, 0) };
};
const rss = (key: string) => /\d+/.exec(new RegExp(`${key}:.*`).exec(readFileSync(`/proc/${svc.proc.pid!}/status`, 'utf8'))![0])![0];
console.log(`service started: RSS ${rss('VmRSS')} kB`);
let peak = 0;
const sampler = setInterval(() => {
  peak = Math.max(peak, Number(rss('VmRSS')));
}, 50);
try {
  for (let i = 0; i < uploads; i++) {
    const cpu0 = cpuSeconds(svc.proc.pid!);
    const gc0 = split();
    const res = await askOnce<BigUploadResult>('bench/files/upload-client.ts', {
      kind: 'big', localFile: file, remotePath: `/ordini/upload-${i}.bin`,
      target: { protocol: 'sftp', port: svc.ports.sftp!, username: svc.ftpUser!, password: svc.ftpPassword },
    }, 300_000);
    const cpu = cpuSeconds(svc.proc.pid!) - cpu0;
    const gc = split();
    const gap = res.writeSeconds === undefined ? '' : `, last WRITE -> CLOSE ${(res.seconds - res.writeSeconds).toFixed(3)} s`;
    console.log(`upload ${i + 1}: ${(res.bytes / MIB / res.seconds).toFixed(1)} MiB/s to the CLOSE${gap}, service CPU ${cpu.toFixed(2)} s, `
      + `full GCs main thread ${gc.main - gc0.main}, other threads ${gc.others - gc0.others} (load ${os.loadavg()[0]!.toFixed(1)})`);
    // Judging the file (after the acknowledgement) is left to end before the next upload is counted.
    await new Promise((r) => setTimeout(r, 2000));
  }
  clearInterval(sampler);
  console.log(`service RSS: peak ${rss('VmHWM')} kB, highest sampled during the uploads ${peak} kB, now ${rss('VmRSS')} kB`);
} finally {
  await svc.stop();
  rmSync(tmp, { recursive: true, force: true });
}
process.exit(0);
