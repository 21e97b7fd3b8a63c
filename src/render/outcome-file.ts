/**
 * The outcome files of /ordini/esiti/: `<name>.esito.json` for programs and `<name>.esito.txt` for people, both
 * rendered on the fly from the stored outcome (never written to disk, so every instance shows the same thing).
 *
 * JSON field names are the spec's words, as in the REST answers: `esito`, `id_ordine`, `numero_ordine`, `errori`
 * ({campo, messaggio}, shape B) and `message` (shape A strings), so a program parsing both reads one vocabulary.
 * The text file is for people: every error in Italian (people-errors.ts), lines placed by their row in a CSV file.
 */
import { localTime } from './local-time.ts';
import { omittedText, recapJson, recapOf, recapTextLines, type Recap } from './recap.ts';
import { changeMessage } from './lifecycle-text.ts';
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
  const r = recapOf(recap, o);
  return {
    indice: o.index,
    ...(o.codice_cliente !== undefined ? { codice_cliente: o.codice_cliente } : {}),
    ...(o.riferimento_ordine !== undefined ? { riferimento_ordine: o.riferimento_ordine } : {}),
    esito: o.esito,
    ...(o.esito === 'ok' ? { id_ordine: o.id_ordine, numero_ordine: o.numero_ordine } : {}),
    ...(o.azione !== undefined ? changeJson(o) : {}),
    ...(o.duplicate ? { duplicato: true } : {}),
    ...(o.esito === 'errore' && o.code ? { codice: o.code } : {}),
    ...(o.message ? { message: o.message } : {}),
    ...(o.message && o.foglio_file ? { celle: messageCells(o.message, o.foglio_file) } : {}),
    ...(o.errori ? { errori: withCells(o.errori, o.foglio_file) } : {}),
    ...(r ? recapJson(r) : {}),
  };
}

/** A change or cancellation: what was asked and what became of it, with the one sentence every channel uses. */
function changeJson(o: OrderOutcome): Record<string, unknown> {
  const messaggio = changeMessage(o);
  return {
    azione: o.azione,
    ...(o.esito === 'errore' && o.id_ordine ? { id_ordine: o.id_ordine, numero_ordine: o.numero_ordine } : {}),
    ...(o.versione !== undefined ? { versione: o.versione } : {}),
    ...(o.stato ? { stato: o.stato } : {}),
    ...(o.id_richiesta !== undefined ? { id_richiesta: o.id_richiesta, stato_richiesta: o.stato_richiesta } : {}),
    ...(messaggio ? { messaggio } : {}),
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

/**
 * The accepted orders counted in words: "3 ordini accettati", or, when some were changes, what each kind did ("1 ordine
 * accettato, 1 ordine modificato, 1 ordine annullato, 1 richiesta inoltrata alla produzione").
 */
export function acceptedWords(orders: readonly OrderOutcome[]): string {
  const ok = orders.filter((o) => o.esito === 'ok');
  const requests = ok.filter((o) => o.id_richiesta !== undefined).length;
  const changed = ok.filter((o) => o.azione === 'modifica' && o.id_richiesta === undefined).length;
  const cancelled = ok.filter((o) => o.azione === 'annulla' && o.id_richiesta === undefined).length;
  const added = ok.length - requests - changed - cancelled;
  if (added === ok.length) return plural(ok.length, 'ordine accettato', 'ordini accettati');
  const parts: string[] = [];
  if (added > 0) parts.push(plural(added, 'ordine accettato', 'ordini accettati'));
  if (changed > 0) parts.push(plural(changed, 'ordine modificato', 'ordini modificati'));
  if (cancelled > 0) parts.push(plural(cancelled, 'ordine annullato', 'ordini annullati'));
  if (requests > 0) parts.push(plural(requests, 'richiesta inoltrata alla produzione', 'richieste inoltrate alla produzione'));
  return parts.join(', ');
}

function orderLines(o: OrderOutcome, recap: Recap | undefined): string[] {
  const ref = o.riferimento_ordine ? `riferimento ${o.riferimento_ordine}` : 'senza riferimento leggibile';
  const rows = o.esito !== 'errore' ? undefined : o.foglio_file ? orderRows(o.foglio_file.righe, o.foglio_file.foglio) : orderRows(o.righe_file);
  const head = `Ordine ${o.index + 1} (${ref}${rows ? `, ${rows}` : ''})`;
  const r = recapOf(recap, o);
  const change = changeMessage(o);
  if (change) return r ? [`${head}: ${change}`, `  Righe della versione ${o.versione}:`, ...recapTextLines(r)] : [`${head}: ${change}`];
  if (o.esito === 'ok') {
    const line = o.duplicate
      ? `${head}: già registrato con lo stesso contenuto, numero ${o.numero_ordine} (nessuna nuova registrazione)`
      : `${head}: registrato con numero ${o.numero_ordine} (id ${o.id_ordine})`;
    return r ? [line, '  Righe registrate:', ...recapTextLines(r)] : [line];
  }
  const lines = [`${head}: ${refusedWords(o)}`];
  for (const e of orderErrorsItalian(o)) lines.push(`  - ${errorLine(e)}`);
  return lines;
}

/** The head of a refused order: a change or cancellation is not registered, it is refused. */
function refusedWords(o: OrderOutcome): string {
  if (o.azione === 'modifica') return `modifica NON applicata${o.numero_ordine ? ` (l'ordine ${o.numero_ordine} resta alla versione ${o.versione})` : ''}`;
  if (o.azione === 'annulla') return `annullamento NON eseguito${o.numero_ordine ? ` (ordine ${o.numero_ordine})` : ''}`;
  return 'NON registrato';
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
    lines.push(`Esito: OK - ${acceptedWords(outcome.orders)}`);
  } else {
    lines.push(`Esito: ERRORE - ${acceptedWords(outcome.orders)}, ${plural(bad, 'ordine con errori', 'ordini con errori')}`);
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
