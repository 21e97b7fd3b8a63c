/**
 * How the pages word what the store holds: Italian labels for channels and states, dates in the service's time
 * zone, errors as a person reads them (Italian, "riga 5 del file"), and raw files as text safe to show.
 * Everything returned here is plain text; the templates escape it.
 */
import type { Channel, OrderOutcome, Outcome } from '../../domain/types.ts';
import { decodeText } from '../../intake/formats/text.ts';
import { fileErrorItalian, orderErrorsItalian, type PeopleError, type PlaceOptions } from '../../render/people-errors.ts';
import type { SubmissionSummary } from '../../domain/store/store.ts';

const CHANNEL_LABELS: Record<Channel, string> = {
  rest: 'REST', soap: 'SOAP', email: 'E-mail', imap: 'E-mail (IMAP)', ftp: 'FTP', sftp: 'SFTP',
  connector: 'Connettore', console: 'Console', portal: 'Portale',
};

export function channelLabel(c: string): string {
  return CHANNEL_LABELS[c as Channel] ?? c;
}

export function stateLabel(s: Pick<SubmissionSummary, 'state' | 'esito'>): { text: string; kind: 'ok' | 'err' | 'wait' } {
  if (s.state === 'received') return { text: 'In elaborazione', kind: 'wait' };
  if (s.state === 'failed') return { text: 'Errore interno', kind: 'err' };
  return s.esito === 'ok' ? { text: 'Accettato', kind: 'ok' } : { text: 'Rifiutato', kind: 'err' };
}

export function dateTimeFormatter(timeZone: string): (iso: string | undefined) => string {
  const f = new Intl.DateTimeFormat('it-IT', { timeZone, day: '2-digit', month: '2-digit', year: 'numeric', hour: '2-digit', minute: '2-digit' });
  return (iso) => (iso ? f.format(new Date(iso)).replace(',', '') : '');
}

/** Every error of one order as `{ where, text }` lines for the outcome lists, in Italian (render/people-errors.ts). */
export function orderErrors(o: OrderOutcome, opts: PlaceOptions = {}): PeopleError[] {
  return orderErrorsItalian(o, opts).map((e) => ({ where: e.where.charAt(0).toUpperCase() + e.where.slice(1), text: e.text }));
}

/** The errors of the order typed in the form: its lines are the form's "Riga N". */
export function formErrors(o: OrderOutcome): PeopleError[] {
  return orderErrors(o, { oneOrder: true });
}

/** A file's own error (it could not be read), in Italian. */
export function fileErrors(fileError: NonNullable<Outcome['fileError']>): string[] {
  return fileErrorItalian(fileError.code, fileError.message);
}

const ACTIONS: Record<string, string> = {
  login: 'Accesso', logout: 'Uscita', 'operator.add': 'Operatore creato', 'operator.reset_password': 'Password operatore reimpostata',
  'operator.disable': 'Operatore disattivato', 'operator.enable': 'Operatore riattivato', 'invio.rielabora': 'Invio rielaborato',
  'invio.correggi_registra': 'Ordine corretto e registrato', 'invio.correggi_rifiutato': 'Correzione rifiutata',
  'ordini.esporta': 'Ordini esportati in CSV', 'cliente.aggiungi': 'Cliente attivato', 'cliente.ruota_chiave': 'Nuova chiave API',
  'cliente.reimposta_password': 'Nuova password cliente', 'articoli.importa': 'Catalogo articoli importato',
  'cliente.disattiva': 'Cliente disattivato', 'cliente.riattiva': 'Cliente riattivato', 'sito.aggiungi': 'Sito di produzione aggiunto',
  'connettore.aggiungi': 'Connettore attivato', 'connettore.ruota_chiave': 'Nuova chiave del connettore',
  'cliente.notifiche_attive': 'Notifiche e-mail dello stato attivate', 'cliente.notifiche_spente': 'Notifiche e-mail dello stato disattivate',
};

export function actionLabel(action: string): string {
  return ACTIONS[action] ?? action;
}

const DETAILS: Record<string, string> = {
  nuovo_invio: 'Nuovo invio', ordine_nel_file: 'Ordine nel file', riferimento_ordine: 'Riferimento', numero_ordine: 'Numero ordine',
  role: 'Ruolo', esito: 'Esito', righe: 'Righe', nome: 'Nome', formato: 'Formato', siti: 'Siti',
};

export function detailLabel(key: string): string {
  return DETAILS[key] ?? key;
}

/** Largest part of a raw file shown on a page; the whole file is a download away. */
export const RAW_PREVIEW_BYTES = 256 * 1024;

/**
 * The raw file as text to show, decoded as the intake decodes it (text.ts decodeText: a BOM, the declared charset,
 * UTF-8, else Windows-1252 as Italian Excel writes), so that "PERÒ" shows as such, not as U+FFFD; bytes no rule
 * decodes are replaced. Control characters are made visible.
 */
export function rawPreview(raw: Buffer, charset?: string): { text: string; cut: boolean; binary: boolean } {
  const cut = raw.length > RAW_PREVIEW_BYTES;
  const head = raw.subarray(0, RAW_PREVIEW_BYTES);
  const binary = head.includes(0);
  // eslint-disable-next-line no-control-regex
  const text = binary ? '' : decoded(cut ? wholeCharacters(head) : head, charset).replace(/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return { text, cut, binary };
}

function decoded(bytes: Buffer, charset: string | undefined): string {
  try {
    return decodeText(bytes, { charset, fallback: 'windows-1252', label: 'file' });
  } catch {
    return bytes.toString('utf8'); // a charset iconv does not know, or a BOM before bytes that are not UTF-8
  }
}

/** A preview cut inside a UTF-8 character would read as Windows-1252: the cut moves back to a whole character. */
function wholeCharacters(b: Buffer): Buffer {
  let i = b.length;
  while (i > 0 && b.length - i < 3 && (b[i - 1]! & 0xc0) === 0x80) i--;
  const lead = b[i - 1];
  if (lead === undefined || lead < 0xc0) return b;
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
  return b.length - (i - 1) < need ? b.subarray(0, i - 1) : b;
}

/** A file name safe in a Content-Disposition header and on any disk: no paths, no quotes, no control characters. */
export function safeFileName(name: string | undefined, fallback: string): string {
  const base = (name ?? '').split(/[\\/]/).pop() ?? '';
  const clean = base.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '').slice(0, 100);
  return clean || fallback;
}

/** 65536 → "64 KiB", 104857600 → "100 MiB". */
export function sizeLabel(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Math.floor(bytes / 1024 / 1024)} MiB`;
  if (bytes >= 1024) return `${Math.floor(bytes / 1024)} KiB`;
  return `${bytes} byte`;
}

export function attachment(name: string): string {
  return `attachment; filename="${name}"`;
}
