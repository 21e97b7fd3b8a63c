/**
 * How the CLI writes: JSON for scripts, aligned tables and labelled blocks for people. Everything printed for
 * people goes through `clean`, because much of it (file names, raw files, metadata) comes from customers, and a
 * file holding terminal escape sequences must not be able to rewrite the operator's screen.
 */

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function println(text = ''): void {
  process.stdout.write(`${text}\n`);
}

/** Control characters other than tab and newline shown as \xNN (ESC, BEL, C1 controls, DEL, lone CR). */
export function clean(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\r(?!\n)|[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f-\x9f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** One line per value: newlines and tabs inside a cell would break the columns. */
function cell(value: unknown): string {
  if (value === undefined || value === null) return '';
  return clean(String(value)).replace(/[\r\n\t]+/g, ' ');
}

/** Longest cell shown in a table; longer values are cut with an ellipsis (--json shows them whole). */
const MAX_CELL = 60;

export function printTable(headers: readonly string[], rows: readonly (readonly unknown[])[]): void {
  const cells = rows.map((r) => headers.map((_, i) => {
    const c = cell(r[i]);
    return c.length > MAX_CELL ? `${c.slice(0, MAX_CELL - 1)}…` : c;
  }));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]?.length ?? 0)));
  const line = (r: readonly string[]) => r.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  println(line(headers));
  for (const r of cells) println(line(r));
}

/** Label/value lines with the values aligned. */
export function printFields(fields: readonly (readonly [label: string, value: unknown])[]): void {
  const shown = fields.filter(([, v]) => v !== undefined && v !== null && v !== '');
  const width = Math.max(...shown.map(([l]) => l.length)) + 1;
  for (const [label, value] of shown) println(`${`${label}:`.padEnd(width + 1)}${cell(value)}`);
}
