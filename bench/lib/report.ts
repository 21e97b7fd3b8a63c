/** The printed table and the JSON file of one benchmark's figures. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { MachineFacts } from './machine.ts';
import { summarise, type Summary } from './stats.ts';
import type { Benchmark, BenchResult, Metric } from './types.ts';

export interface ReportedMetric extends Metric {
  summary: Summary;
  /** Whether the median meets the target (undefined without a target). */
  meetsTarget?: boolean;
}

export interface Report {
  benchmark: string;
  description: string;
  date: string;
  command: string;
  machine: MachineFacts;
  settings: BenchResult['settings'];
  durability: string;
  metrics: ReportedMetric[];
  notes: string[];
  skipped?: string;
  details?: unknown[];
}

function fmt(v: number): string {
  if (!Number.isFinite(v)) return '-';
  const a = Math.abs(v);
  if (a >= 1000) return Math.round(v).toLocaleString('en-US');
  if (a >= 100) return v.toFixed(0);
  if (a >= 10) return v.toFixed(1);
  return v.toFixed(2);
}

export function buildReport(b: Benchmark, r: BenchResult, machine: MachineFacts, command: string): Report {
  return {
    benchmark: b.name,
    description: b.description,
    date: new Date().toISOString(),
    command,
    machine,
    settings: r.settings,
    durability: r.durability,
    metrics: r.metrics.map((m) => {
      const summary = summarise(m.samples);
      const meetsTarget = m.target && Number.isFinite(summary.median)
        ? (m.target.op === '>=' ? summary.median >= m.target.value : summary.median <= m.target.value)
        : undefined;
      return { ...m, summary, meetsTarget };
    }),
    notes: r.notes,
    skipped: r.skipped,
    details: r.details,
  };
}

function pad(cells: string[][]): string[] {
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  return cells.map((row) => row.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '));
}

export function printReport(rep: Report, out: (line: string) => void): void {
  out('');
  out(`== ${rep.benchmark}: ${rep.description}`);
  if (rep.skipped) {
    out(`   skipped: ${rep.skipped}`);
    return;
  }
  const m = rep.machine;
  out(`   machine: ${m.cpus} × ${m.cpuModel}, ${m.memoryGiB} GiB, node ${m.node}, kernel ${m.kernel}, `
    + `load ${m.loadAverage.join(' ')}, fsync ${m.fsync.medianMs} ms median`);
  out(`   durability: ${rep.durability}`);
  out(`   settings: ${JSON.stringify(rep.settings)}`);
  const rows = [['metric', 'unit', 'median', 'min', 'max', 'IQR', 'runs', 'target']];
  for (const x of rep.metrics) {
    const s = x.summary;
    const target = x.target ? `${x.target.op} ${fmt(x.target.value)} ${x.meetsTarget ? 'met' : 'NOT met'}` : '';
    rows.push([x.name, x.unit, fmt(s.median), fmt(s.min), fmt(s.max), `${fmt(s.q1)}–${fmt(s.q3)}`, String(s.n), target]);
  }
  for (const line of pad(rows)) out(`   ${line}`);
  for (const n of rep.notes) out(`   ${n}`);
}

export function writeReport(rep: Report, dir: string): string {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${rep.benchmark}.json`);
  writeFileSync(file, JSON.stringify(rep, null, 2) + '\n');
  return file;
}
