/**
 * JSON texts built by JavaScript with holes for the two values only a statement knows: the id and the number of an
 * order it registers or finds (single-batch.ts). The statement fills the holes (fillHolesSql) and stores the text,
 * so what it stores is JSON.stringify of what the one builder made (singleOrderOutcome, refusalEvents…), byte for
 * byte, and no SQL ever spells an outcome's keys or its Italian messages: they cannot drift apart.
 *
 * A hole is a raw control character (ID_HOLE, NUMBER_HOLE), which JSON.stringify never writes: it escapes every
 * character below U+0020. The texts are built with the stand-ins U+0001 (id) and U+0002 (number), which
 * JSON.stringify writes as the escapes \u0001 and \u0002, and those escapes become the holes. When the builder's
 * other inputs may hold the same characters or the text of those escapes (a customer's reference can hold anything:
 * mayHoldStandIns), finding them would be ambiguous; the texts are then built a second time with other stand-ins and
 * the holes are where the two builds differ (customer content is the same in both). Both ways give the same holes;
 * the first costs one build instead of two, and runs for each possible answer of every REST order.
 */

/** Where the order's id goes. */
export const ID_HOLE = '\u0001';
/** Where the order's number goes. */
export const NUMBER_HOLE = '\u0002';

/** Whether `inputs` (everything a builder reads besides the id and number) hold a stand-in or its escape's text. */
export function mayHoldStandIns(inputs: unknown): boolean {
  return /\\u000[12]/.test(JSON.stringify(inputs) ?? '');
}

/**
 * The texts `build(id, numero)` makes, with holes where `id` and `numero` were written. `build` must make the same
 * texts for the same values (ids of its own, e.g. event ids, belong outside the texts), and put each value only in
 * string content (JSON.stringify writes a stand-in as the six characters \u000N there). `twice`: build a second
 * time and compare, for inputs that mayHoldStandIns (the default: the safe way).
 */
export function withHoles(build: (id: string, numero: string) => readonly string[], twice = true): string[] {
  const a = build('\u0001', '\u0002');
  if (!twice) return a.map((text) => text.replaceAll('\\u0001', ID_HOLE).replaceAll('\\u0002', NUMBER_HOLE));
  const b = build('\u0003', '\u0004');
  if (a.length !== b.length) throw new Error('withHoles: the builder made a different number of texts for other values');
  return a.map((text, t) => holesOf(text, b[t]!));
}

function holesOf(a: string, b: string): string {
  if (a.length !== b.length) throw new Error('withHoles: the builder made texts of different shapes for other values');
  let out = '';
  let from = 0;
  for (let i = 0; i < a.length; i++) {
    if (a.charCodeAt(i) === b.charCodeAt(i)) continue;
    // The stand-ins are U+0001/U+0002 in `a`, U+0003/U+0004 in `b`: `a` holds \u0001 or \u0002 ending at i.
    const kind = a[i];
    if (a.slice(i - 5, i) !== '\\u000' || (kind !== '1' && kind !== '2')) {
      throw new Error('withHoles: a value was written other than as string content');
    }
    out += a.slice(from, i - 5) + (kind === '1' ? ID_HOLE : NUMBER_HOLE);
    from = i + 1;
  }
  return out + a.slice(from);
}

/** The same filling in JavaScript (tests, and the statement's reference). */
export function fillHoles(template: string, id: string, numero: string): string {
  const content = (v: string): string => JSON.stringify(v).slice(1, -1);
  return template.replaceAll(ID_HOLE, content(id)).replaceAll(NUMBER_HOLE, content(numero));
}

/**
 * The SQL expression of `template` (text) with its holes filled with the JSON string content of `id` and `numero`
 * (text; to_json escapes them as JSON.stringify would, within what parsing tells apart).
 */
export function fillHolesSql(template: string, id: string, numero: string): string {
  const content = (v: string): string => `substr(to_json(${v})::text, 2, length(to_json(${v})::text) - 2)`;
  return `replace(replace(${template}, chr(1), ${content(id)}), chr(2), ${content(numero)})`;
}
