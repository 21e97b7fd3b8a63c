/**
 * Summary of V8 CPU profiles (`node --cpu-prof` writes .cpuprofile JSON): where the samples fell, by function
 * (self time), by package or source folder, and the inclusive time of our own functions. Used by the rest
 * benchmark's --profile pass; also runnable alone: `node --import tsx bench/profile/summarise.ts DIR|FILE`.
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Rows printed per table: enough to see the shape, short enough to read. */
const TOP = 15;
/** Functions whose callers are listed. */
const CALLERS_OF = 6;

function shortUrl(url: string, root: string): string {
  const p = url.startsWith('file://') ? decodeURIComponent(new URL(url).pathname) : url;
  const nm = p.lastIndexOf('/node_modules/');
  if (nm >= 0) return p.slice(nm + '/node_modules/'.length);
  return p.startsWith(root) ? path.relative(root, p) : p;
}

/** The group a frame's time is charged to: a package, a folder of src/, Node itself, or V8's own entries. */
function groupOf(frame: CallFrame, root: string): string {
  const { url, functionName } = frame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native code)';
  if (url.startsWith('node:')) return 'node (core modules)';
  const p = shortUrl(url, root);
  if (p !== url && url.includes('/node_modules/')) {
    const parts = p.split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  const parts = p.split('/');
  return parts[0] === 'src' ? parts.slice(0, Math.min(parts.length - 1, 3)).join('/') : p;
}

function frameKey(frame: CallFrame, root: string): string {
  const name = frame.functionName || '(anonymous)';
  if (!frame.url) return name;
  const file = shortUrl(frame.url, root);
  // Lines of .ts files are those of tsx's transpiled output, not of the source, so they would mislead.
  return file.endsWith('.ts') ? `${name} ${file}` : `${name} ${file}:${frame.lineNumber + 1}`;
}

function pct(part: number, total: number): string {
  return `${((part / total) * 100).toFixed(1).padStart(5)}%`;
}

function top(map: Map<string, number>, total: number, title: string): string[] {
  const rows = [...map].sort((a, b) => b[1] - a[1]).slice(0, TOP);
  return [title, ...rows.map(([k, v]) => `  ${pct(v, total)}  ${(v / 1000).toFixed(0).padStart(7)} ms  ${k}`)];
}

export function summariseProfile(profile: CpuProfile, root: string): string[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<number, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    self.set(id, (self.get(id) ?? 0) + dt);
    total += dt;
  });
  const bySelf = new Map<string, number>();
  const byGroup = new Map<string, number>();
  for (const [id, t] of self) {
    const n = byId.get(id)!;
    const k = frameKey(n.callFrame, root);
    bySelf.set(k, (bySelf.get(k) ?? 0) + t);
    const g = groupOf(n.callFrame, root);
    byGroup.set(g, (byGroup.get(g) ?? 0) + t);
  }
  // Inclusive time of our own functions: a function counts once per sample even when it recurses.
  const inclusive = new Map<string, number>();
  for (const [id, t] of self) {
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const f = byId.get(cur)!.callFrame;
      if (!f.url || !shortUrl(f.url, root).startsWith('src/')) continue;
      const k = frameKey(f, root);
      if (seen.has(k)) continue;
      seen.add(k);
      inclusive.set(k, (inclusive.get(k) ?? 0) + t);
    }
  }
  // Who calls the heaviest functions: V8 charges the time of a native call (a SQLite step, an fsync) to the JS
  // function that made it, so the caller is what names the statement.
  const callers = new Map<string, Map<string, number>>();
  for (const [id, t] of self) {
    const k = frameKey(byId.get(id)!.callFrame, root);
    const p = parent.get(id);
    const c = p === undefined ? '(root)' : frameKey(byId.get(p)!.callFrame, root);
    const m = callers.get(k) ?? new Map<string, number>();
    m.set(c, (m.get(c) ?? 0) + t);
    callers.set(k, m);
  }
  const heaviest = [...bySelf].filter(([k]) => !k.startsWith('(')).sort((a, b) => b[1] - a[1]).slice(0, CALLERS_OF);
  const callerLines = heaviest.flatMap(([k]) => [
    `  ${k} ← ${[...callers.get(k)!].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([c, t]) => `${c} (${pct(t, total).trim()})`).join(', ')}`,
  ]);
  const idle = bySelf.get('(idle)') ?? 0;
  return [
    `CPU profile: ${(total / 1e6).toFixed(1)} s sampled, ${pct(idle, total).trim()} idle`,
    ...top(byGroup, total, 'self time by package / source folder:'),
    ...top(bySelf, total, 'top functions by self time:'),
    'their main callers:',
    ...callerLines,
    ...top(inclusive, total, 'our functions by inclusive time (src/):'),
  ];
}

function busyMs(p: CpuProfile): number {
  const idle = new Set(p.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
  return p.samples.reduce((t, id, i) => (idle.has(id) ? t : t + (p.timeDeltas[i] ?? 0)), 0) / 1000;
}

/**
 * Summary of every busy .cpuprofile in a folder, busiest first (a process writes one per thread that ran JavaScript:
 * the SQLite write thread is one, and under tsx the module loader's worker is another, nearly idle one). A thread
 * busy for less than a tenth of the busiest is only named. `keepAs` gets a copy of the busiest, and the other busy
 * ones are kept beside it as `<name>.thread-<n>.cpuprofile`.
 */
export function summariseProfiles(dirOrFile: string, root: string, keepAs?: string): string[] {
  const files = statSync(dirOrFile).isDirectory()
    ? readdirSync(dirOrFile).filter((f) => f.endsWith('.cpuprofile')).map((f) => path.join(dirOrFile, f))
    : [dirOrFile];
  if (files.length === 0) return [`no .cpuprofile in ${dirOrFile}`];
  const loaded = files.map((f) => ({ f, p: JSON.parse(readFileSync(f, 'utf8')) as CpuProfile })).map((x) => ({ ...x, busy: busyMs(x.p) }));
  loaded.sort((a, b) => b.busy - a.busy);
  const busy = loaded.filter((x) => x.busy >= loaded[0]!.busy / 10);
  const quiet = loaded.slice(busy.length).map((x) => `${path.basename(x.f)} (${x.busy.toFixed(0)} ms busy)`);
  const lines: string[] = [];
  busy.forEach((x, i) => {
    const kept = keepAs ? (i === 0 ? keepAs : keepAs.replace(/\.cpuprofile$/, `.thread-${i + 1}.cpuprofile`)) : undefined;
    if (kept) {
      mkdirSync(path.dirname(kept), { recursive: true });
      copyFileSync(x.f, kept);
    }
    lines.push(`thread ${i + 1} of ${busy.length}: profile ${kept ? path.relative(root, kept) : path.basename(x.f)} (${x.busy.toFixed(0)} ms busy)`);
    lines.push(...summariseProfile(x.p, root));
  });
  if (quiet.length) lines.push(`not shown (less than a tenth of the busiest): ${quiet.join(', ')}`);
  return lines;
}

if (import.meta.filename === process.argv[1]) {
  const target = process.argv[2];
  if (!target) {
    console.error('usage: node --import tsx bench/profile/summarise.ts <folder or .cpuprofile file>');
    process.exit(2);
  }
  console.log(summariseProfiles(target, path.resolve(import.meta.dirname, '../..')).join('\n'));
}
