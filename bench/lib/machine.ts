/** Facts about the machine a figure was measured on, written next to every result. */
import { closeSync, fsyncSync, openSync, rmSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { summarise } from './stats.ts';

export interface MachineFacts {
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
  v8: string;
  kernel: string;
  platform: string;
  /** 1, 5 and 15 minute load averages when the benchmark started: other work on the machine skews figures. */
  loadAverage: number[];
  /** Median and max time of a 4 KiB write + fsync in the scratch folder: the floor of one durable commit. */
  fsync: { medianMs: number; maxMs: number; samples: number };
}

/** Enough fsyncs for a stable median, few enough to take well under a second on any disk worth benchmarking. */
const FSYNC_PROBES = 50;

function probeFsync(dir: string): MachineFacts['fsync'] {
  const file = path.join(dir, 'fsync-probe');
  const fd = openSync(file, 'w');
  const block = Buffer.alloc(4096, 1);
  const times: number[] = [];
  try {
    for (let i = 0; i < FSYNC_PROBES; i++) {
      const t = process.hrtime.bigint();
      writeSync(fd, block);
      fsyncSync(fd);
      times.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
  } finally {
    closeSync(fd);
    rmSync(file, { force: true });
  }
  const s = summarise(times);
  return { medianMs: round(s.median, 3), maxMs: round(s.max, 3), samples: s.n };
}

function round(v: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}

export function machineFacts(scratchDir: string): MachineFacts {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    cpuModel: cpus[0]?.model ?? 'unknown',
    memoryGiB: round(os.totalmem() / 2 ** 30, 1),
    node: process.version,
    v8: process.versions.v8,
    kernel: os.release(),
    platform: `${os.platform()} ${os.arch()}`,
    loadAverage: os.loadavg().map((v) => round(v, 2)),
    fsync: probeFsync(scratchDir),
  };
}
