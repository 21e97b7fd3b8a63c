import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { contextOf, readDate, readNumber, writeNumber, numberContext } from '../../../src/intake/formats/people-values.ts';
import { decodeCsv } from '../../../src/intake/formats/csv/index.ts';
import { readOrderForm } from '../../../src/channels/web/order-form.ts';

/** A small seeded generator: the same cases on every run, so a failure can be replayed. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A value as its parts: the whole digits and the fraction digits ('' for an integer). */
interface Value { whole: string; fraction: string }
const valueOf = (v: Value) => Number(v.fraction ? `${v.whole}.${v.fraction}` : v.whole);

function someValue(rnd: () => number): Value {
  const size = [1, 2, 3, 4, 5, 7, 10][Math.floor(rnd() * 7)]!;
  const whole = String(Math.floor(rnd() * 10 ** size));
  const digits = [0, 0, 1, 2, 3][Math.floor(rnd() * 5)]!;
  let fraction = '';
  for (let i = 0; i < digits; i++) fraction += String(Math.floor(rnd() * 10));
  // A machine writes its shortest form: no trailing zeros in the fraction.
  return { whole, fraction: fraction.replace(/0+$/, '') };
}

function groupThousands(whole: string): string {
  return whole.replace(/\B(?=(\d{3})+(?!\d))/g, '.');
}

/** As an Italian writes it: decimal comma, thousands grouped with dots or not at all. */
function italian(v: Value, rnd: () => number): string {
  const whole = rnd() < 0.5 ? groupThousands(v.whole) : v.whole;
  return v.fraction ? `${whole},${v.fraction}` : whole;
}

/** As a machine writes it: decimal point, no grouping. */
const machine = (v: Value) => (v.fraction ? `${v.whole}.${v.fraction}` : v.whole);

const CASES = 4000;

void describe('numbers written by people', () => {
  void it('reads Italian and plain machine forms, and refuses what is ambiguous or foreign', () => {
    const none = numberContext();
    const cases: Array<[string, number | string]> = [
      ['1500', 1500], ['1.500', 1500], ['1.000', 1000], ['2.000,5', 2000.5], ['1.234.567', 1234567], ['1,5', 1.5],
      ['0,250', 0.25], ['2,500', 2.5], ['2.5', 2.5], ['0.250', 0.25], ['12345.678', 12345.678], [' 7 ', 7], ['-2,5', -2.5],
      ['1,234.5', 'convenzione italiana'], ['1,234,567', 'convenzione italiana'], ['1.50.0', 'non è un numero'],
      ['1.23,4', 'non è un numero'], ['dodici', 'non è un numero'], ['1,5 kg', 'non è un numero'], ['1e3', 'non è un numero'],
      ['', 'non è un numero'], ['.5', 'non è un numero'],
    ];
    for (const [text, expected] of cases) {
      const r = readNumber(text, none);
      if (typeof expected === 'number') assert.deepEqual(r, { ok: true, value: expected }, text);
      else assert.ok(!r.ok && r.reason.includes(expected), `${text}: ${JSON.stringify(r)}`);
    }
  });

  void it('refuses a text that the values around it make ambiguous, saying why with the text', () => {
    const commas = contextOf(['2,5', '10']);
    const points = contextOf(['2.5', '10']);
    const r1 = readNumber('1.5', commas);
    assert.ok(!r1.ok && r1.reason.includes('«1.5»') && r1.reason.includes('1,5'), JSON.stringify(r1));
    const r2 = readNumber('1.500', points);
    assert.ok(!r2.ok && r2.reason.includes('1500 oppure 1,5'), JSON.stringify(r2));
    assert.equal(readNumber('1,500', points).ok, false);
    // Unambiguous whatever the context: only one reading exists.
    assert.deepEqual(readNumber('1,5', points), { ok: true, value: 1.5 });
    assert.deepEqual(readNumber('2.000,5', points), { ok: true, value: 2000.5 });
    // A file delimited by `,` is a machine's even when all its decimals have three digits.
    assert.equal(readNumber('1.500', contextOf(['1.500'], true)).ok, false);
  });

  void it('property: a context written the Italian way reads every value exactly, never refused', () => {
    const rnd = random(43);
    for (let n = 0; n < CASES; n++) {
      const values = Array.from({ length: 1 + Math.floor(rnd() * 6) }, () => someValue(rnd));
      const texts = values.map((v) => italian(v, rnd));
      const ctx = contextOf(texts);
      texts.forEach((t, i) => assert.deepEqual(readNumber(t, ctx), { ok: true, value: valueOf(values[i]!) }, `${t} in ${texts.join(' ')}`));
    }
  });

  void it('property: a machine context reads every value exactly or refuses it, never another magnitude', () => {
    const rnd = random(7);
    let refused = 0;
    for (let n = 0; n < CASES; n++) {
      const values = Array.from({ length: 1 + Math.floor(rnd() * 6) }, () => someValue(rnd));
      const texts = values.map(machine);
      // A machine's file shows it by its delimiter, or by one decimal point that is not three digits long.
      const hint = rnd() < 0.5;
      if (!hint && !texts.some((t) => /^\d+\.(\d{1,2}|\d{4,})$/.test(t) || /^(0|\d{4,})\.\d+$/.test(t))) continue;
      const ctx = contextOf(texts, hint);
      texts.forEach((t, i) => {
        const r = readNumber(t, ctx);
        if (r.ok) assert.equal(r.value, valueOf(values[i]!), `${t} in ${texts.join(' ')}`);
        else refused++;
      });
    }
    assert.ok(refused > 0, 'some machine values are ambiguous (1.125) and must have been refused');
  });

  void it('property: a context mixing both ways reads each value as its writer meant or refuses it', () => {
    const rnd = random(1500);
    let read = 0;
    for (let n = 0; n < CASES; n++) {
      const values = Array.from({ length: 2 + Math.floor(rnd() * 6) }, () => someValue(rnd));
      const writers = values.map(() => (rnd() < 0.5 ? 'it' : 'machine'));
      const texts = values.map((v, i) => (writers[i] === 'it' ? italian(v, rnd) : machine(v)));
      const ctx = contextOf(texts);
      if (!(ctx.italian && ctx.machine)) continue; // a context of one way is the properties above
      texts.forEach((t, i) => {
        const r = readNumber(t, ctx);
        if (!r.ok) return;
        read++;
        assert.equal(r.value, valueOf(values[i]!), `${t} (${writers[i]}) in ${texts.join(' ')}`);
      });
    }
    assert.ok(read > 0);
  });

  void it('property: a number written back for a person reads as itself in any context', () => {
    const rnd = random(2026);
    const contexts = [numberContext(), numberContext(true), { italian: true, machine: true }, { italian: true, machine: false }];
    for (let n = 0; n < CASES; n++) {
      const v = valueOf(someValue(rnd));
      for (const ctx of contexts) assert.deepEqual(readNumber(writeNumber(v), ctx), { ok: true, value: v }, `${v} → ${writeNumber(v)}`);
    }
  });

  void it('property: the CSV decoder and the order form read the same texts the same way', () => {
    const rnd = random(99);
    for (let n = 0; n < 300; n++) {
      const values = Array.from({ length: 1 + Math.floor(rnd() * 5) }, () => someValue(rnd));
      const texts = values.map((v) => (rnd() < 0.7 ? italian(v, rnd) : machine(v)));
      const rows = texts.map((t, i) => `C;P${n};2026-11-28;;A${i};${t};PZ`);
      const [order] = decodeCsv({ raw: Buffer.from(['codice_cliente;riferimento_ordine;data_ordine;data_consegna;codice_articolo;quantita;unita_misura', ...rows].join('\n')) }) as { righe: { quantita: unknown }[] }[];
      const form = readOrderForm({ riferimento_ordine: 'P', data_ordine: '28/11/2026', data_consegna: '', note: '', righe: texts.map((t) => ({ codice_articolo: 'A', quantita: t, unita_misura: 'PZ' })) }, 'C');
      const fromCsv = order!.righe.map((l) => l.quantita);
      const ctx = contextOf(texts);
      const expected = texts.map((t) => {
        const r = readNumber(t, ctx);
        return r.ok ? r.value : t;
      });
      assert.deepEqual(fromCsv, expected, texts.join(' '));
      if (form.ok) assert.deepEqual((form.order.righe as { quantita: unknown }[]).map((l) => l.quantita), expected);
      else assert.ok(expected.some((e) => typeof e === 'string'), `the form refused what the file read: ${texts.join(' ')}`);
      // Whatever was read is what its writer meant.
      expected.forEach((e, i) => {
        if (typeof e === 'number') assert.ok(e === valueOf(values[i]!) || /^[1-9]\d{0,2}\.\d{3}$/.test(texts[i]!), `${texts[i]} read as ${e}`);
      });
    }
  });
});

void describe('dates written by people', () => {
  void it('reads day-first dates and ISO, refuses two-digit years and days the calendar lacks', () => {
    const cases: Array<[string, string]> = [
      ['28/11/2026', '2026-11-28'], ['2026-11-28', '2026-11-28'], ['3/4/2026', '2026-04-03'], ['28.11.2026', '2026-11-28'],
      ['28-11-2026', '2026-11-28'], ['2026/11/28', '2026-11-28'], [' 29/02/2028 ', '2028-02-29'],
    ];
    for (const [text, iso] of cases) assert.deepEqual(readDate(text), { ok: true, value: iso }, text);
    for (const [text, why] of [['28/11/26', 'quattro cifre'], ['31/02/2026', 'calendario'], ['29/02/2027', 'calendario'], ['11/28/2026', 'calendario'], ['domani', 'non è una data'], ['28/11-2026', 'non è una data']]) {
      const r = readDate(text!);
      assert.ok(!r.ok && r.reason.includes(why!) && r.reason.includes(text!.trim()), `${text}: ${JSON.stringify(r)}`);
    }
  });
});
