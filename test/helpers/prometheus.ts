/** A small reader of the Prometheus text exposition format (what a scraper receives), for asserting on values. */

export type Samples = Map<string, number>;

function key(name: string, labels: Record<string, string>): string {
  const parts = Object.keys(labels).sort().map((k) => `${k}="${labels[k]}"`);
  return parts.length ? `${name}{${parts.join(',')}}` : name;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Every sample of a scrape; throws on a line that is not a comment, blank or a sample (a malformed exposition). */
export function parsePrometheus(text: string): Samples {
  const out: Samples = new Map();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = LINE.exec(line);
    if (!m) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(LABEL)) labels[l[1]!] = l[2]!;
    out.set(key(m[1]!, labels), Number(m[3]));
  }
  return out;
}

/** The value of one sample; 0 when the series does not exist yet (a counter never incremented). */
export function sample(s: Samples, name: string, labels: Record<string, string> = {}): number {
  return s.get(key(name, labels)) ?? 0;
}
