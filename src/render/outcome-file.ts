/**
 * The outcome files of /ordini/esiti/: `<name>.esito.json` for programs and `<name>.esito.txt` for people, both
 * rendered on the fly from the stored outcome (never written to disk, so every instance shows the same thing).
 *
 * JSON field names are the spec's words, as in the REST answers: `esito`, `id_ordine`, `numero_ordine`, `errori`
 * ({campo, messaggio}, shape B) and `message` (shape A strings), so a program parsing both reads one vocabulary.
 * The text file is for people: every error in Italian (people-errors.ts), lines placed by their row in a CSV file.
 */
import { localTime } from './local-time.ts';
import { omittedText, recapJson, recapTextLines, type Recap } from './recap.ts';
import { errorLine, fileErrorItalian, orderErrorsItalian, orderRows } from './people-errors.ts';
import { messageCells, withCells } from './cells.ts';
import type { OrderOutcome, Outcome } from '../domain/types.ts';

export interface OutcomeFileInput {
  /** The file's name as listed (see names.ts). */
  name: string;
  submissionId: string;
  receivedAt: string;
  processedAt?: string;
  /** When the same bytes had already been received from this customer (meta.gia_ricevuto_il). */
  alreadyReceivedAt?: string;
  outcome: Outcome;
  timeZone: string;
  /** The registered lines of the accepted orders (recap.ts); without it, no recap is written. */
  recap?: Recap;
  /** Set when the file is the notice of an order registered by the order desk after a correction. */
  correctedBy?: { numero_ordine: string; riferimento_ordine?: string };
}

export const OUTCOME_JSON_SUFFIX = '.esito.json';
export const OUTCOME_TEXT_SUFFIX = '.esito.txt';

function orderJson(o: OrderOutcome, recap: Recap | undefined): Record<string, unknown> {
  const r = o.esito === 'ok' && o.id_ordine ? recap?.byOrder.get(o.id_ordine) : undefined;
  return {
    indice: o.index,
    ...(o.codice_cliente !== undefined ? { codice_cliente: o.codice_cliente } : {}),
    ...(o.riferimento_ordine !== undefined ? { riferimento_ordine: o.riferimento_ordine } : {}),
    esito: o.esito,
    ...(o.esito === 'ok' ? { id_ordine: o.id_ordine, numero_ordine: o.numero_ordine } : {}),
    ...(o.duplicate ? { duplicato: true } : {}),
    ...(o.esito === 'errore' && o.code ? { codice: o.code } : {}),
    ...(o.message ? { message: o.message } : {}),
    ...(o.message && o.foglio_file ? { celle: messageCells(o.message, o.foglio_file) } : {}),
    ...(o.errori ? { errori: withCells(o.errori, o.foglio_file) } : {}),
    ...(r ? recapJson(r) : {}),
  };
}

export function renderOutcomeJson(f: OutcomeFileInput): Buffer {
  const body = {
    file: f.name,
    id_invio: f.submissionId,
    ricevuto_il: f.receivedAt,
    ...(f.processedAt ? { elaborato_il: f.processedAt } : {}),
    esito: f.outcome.esito,
    ...(f.alreadyReceivedAt ? { gia_ricevuto_il: f.alreadyReceivedAt } : {}),
    ...(f.outcome.fileError ? { errore_file: { codice: f.outcome.fileError.code, message: f.outcome.fileError.message } } : {}),
    ...(f.correctedBy ? { registrato_da: 'ufficio_ordini' } : {}),
    ordini: f.outcome.orders.map((o) => orderJson(o, f.recap)),
    ...(f.recap?.omittedOrders ? { ordini_senza_riepilogo: f.recap.omittedOrders } : {}),
  };
  return Buffer.from(JSON.stringify(body, null, 2) + '\n', 'utf8');
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

function orderLines(o: OrderOutcome, recap: Recap | undefined): string[] {
  const ref = o.riferimento_ordine ? `riferimento ${o.riferimento_ordine}` : 'senza riferimento leggibile';
  const rows = o.esito !== 'errore' ? undefined : o.foglio_file ? orderRows(o.foglio_file.righe, o.foglio_file.foglio) : orderRows(o.righe_file);
  const head = `Ordine ${o.index + 1} (${ref}${rows ? `, ${rows}` : ''})`;
  if (o.esito === 'ok') {
    const r = o.id_ordine ? recap?.byOrder.get(o.id_ordine) : undefined;
    const line = o.duplicate
      ? `${head}: già registrato con lo stesso contenuto, numero ${o.numero_ordine} (nessuna nuova registrazione)`
      : `${head}: registrato con numero ${o.numero_ordine} (id ${o.id_ordine})`;
    return r ? [line, '  Righe registrate:', ...recapTextLines(r)] : [line];
  }
  const lines = [`${head}: NON registrato`];
  for (const e of orderErrorsItalian(o)) lines.push(`  - ${errorLine(e)}`);
  return lines;
}

/** Short Italian text, CRLF line ends so that every Windows editor shows it right. */
export function renderOutcomeText(f: OutcomeFileInput): Buffer {
  const { outcome } = f;
  const ok = outcome.orders.filter((o) => o.esito === 'ok').length;
  const bad = outcome.orders.length - ok;
  const lines = f.correctedBy ? correctionHead(f.correctedBy) : [];
  lines.push(`Esito del file ${f.name}`, `Ricevuto il ${localTime(f.receivedAt, f.timeZone, true)}${f.processedAt ? `, elaborato il ${localTime(f.processedAt, f.timeZone, true)}` : ''}`);
  if (outcome.fileError) {
    lines.push('Esito: ERRORE - il file non è stato elaborato, nessun ordine registrato');
    for (const m of fileErrorItalian(outcome.fileError.code, outcome.fileError.message)) lines.push(`  - ${m}`);
  } else if (outcome.esito === 'ok') {
    lines.push(`Esito: OK - ${plural(ok, 'ordine accettato', 'ordini accettati')}`);
  } else {
    lines.push(`Esito: ERRORE - ${plural(ok, 'ordine accettato', 'ordini accettati')}, ${plural(bad, 'ordine con errori', 'ordini con errori')}`);
  }
  if (f.alreadyReceivedAt) lines.push(`Nota: file già ricevuto il ${localTime(f.alreadyReceivedAt, f.timeZone, true)} (stesso contenuto).`);
  if (outcome.orders.length > 0) lines.push('');
  for (const o of outcome.orders) for (const l of orderLines(o, f.recap)) lines.push(l); // one order may have 100k+ lines
  if (f.recap?.omittedOrders) lines.push('', omittedText(f.recap.omittedOrders));
  lines.push('', `Identificativo dell'invio: ${f.submissionId}`);
  return Buffer.from(lines.join('\r\n') + '\r\n', 'utf8');
}

/** The opening of a correction notice: the order desk registered an order of a file it had refused. */
function correctionHead(c: { numero_ordine: string; riferimento_ordine?: string }): string[] {
  const ref = c.riferimento_ordine ? ` (riferimento ${c.riferimento_ordine})` : '';
  return [`L'ordine${ref} è stato corretto e registrato dall'ufficio ordini con numero ${c.numero_ordine}.`, ''];
}
