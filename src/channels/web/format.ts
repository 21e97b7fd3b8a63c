/**
 * How the pages word what the store holds: Italian labels for channels and states, dates in the service's time
 * zone, errors as a person reads them (Italian, "riga 5 del file"), and raw files as text safe to show.
 * Everything returned here is plain text; the templates escape it.
 */
import type { Channel, OrderOutcome, Outcome, ProductionState } from '../../domain/types.ts';
import { decodeText } from '../../intake/formats/text.ts';
import { fileErrorItalian, orderErrorsItalian, type PeopleError, type PlaceOptions } from '../../render/people-errors.ts';
import type { SubmissionSummary } from '../../domain/store/store.ts';
import type { OperatorRole } from '../../domain/store/web.ts';
import type { OrderEventType } from '../../domain/order-events.ts';
import { formatter } from '../../render/local-time.ts';

const CHANNEL_LABELS: Record<Channel, string> = {
  rest: 'REST', soap: 'SOAP', email: 'E-mail', imap: 'E-mail (IMAP)', ftp: 'FTP', sftp: 'SFTP',
  connector: 'Connettore', console: 'Console', portal: 'Portale',
};

export function channelLabel(c: string): string {
  return CHANNEL_LABELS[c as Channel] ?? c;
}

export type BadgeKind = 'ok' | 'err' | 'wait' | 'part';

/**
 * A submission's state as a badge. `partial`: refused as a whole (esito errore) yet some of its orders were accepted;
 * calling that "Rifiutato" made people send again orders that were already registered.
 */
export function stateLabel(s: Pick<SubmissionSummary, 'state' | 'esito' | 'partial'>): { text: string; kind: BadgeKind } {
  if (s.state === 'received') return { text: 'In elaborazione', kind: 'wait' };
  if (s.state === 'failed') return { text: 'Errore interno', kind: 'err' };
  if (s.esito === 'ok') return { text: 'Accettato', kind: 'ok' };
  return s.partial ? { text: 'Parzialmente accettato', kind: 'part' } : { text: 'Rifiutato', kind: 'err' };
}

/** True when an outcome refused some orders and accepted others (what `partial` says of a listed submission). */
export function isPartial(o: Pick<Outcome, 'esito' | 'orders'> | undefined): boolean {
  return o !== undefined && o.esito === 'errore' && o.orders.some((x) => x.esito === 'ok');
}

/** The badge of a submission shown whole (its outcome at hand rather than the listing's `partial`). */
export function submissionState(s: { state: SubmissionSummary['state']; outcome?: Outcome }): { text: string; kind: BadgeKind } {
  return stateLabel({ state: s.state, esito: s.outcome?.esito, partial: isPartial(s.outcome) });
}

const PRODUCTION_LABELS: Record<ProductionState, { text: string; kind: BadgeKind }> = {
  in_lavorazione: { text: 'In lavorazione', kind: 'wait' },
  spedito: { text: 'Spedito', kind: 'ok' },
  consegnato: { text: 'Consegnato', kind: 'ok' },
  annullato: { text: 'Annullato', kind: 'err' },
};

/** What production last reported of an order; nothing reported yet reads as waiting for production. */
export function productionLabel(s: ProductionState | undefined): { text: string; kind: BadgeKind | 'none' } {
  return s ? PRODUCTION_LABELS[s] ?? { text: s, kind: 'wait' } : { text: 'In attesa di lavorazione', kind: 'none' };
}

const ROLES: Record<OperatorRole, string> = { admin: 'amministratore', operator: 'operatore', viewer: 'sola lettura' };

export function roleLabel(role: string): string {
  return ROLES[role as OperatorRole] ?? role;
}

/** `28/11/2026 14:05` in the service's time zone: the one way pages show an instant to people. */
export function dateTimeFormatter(timeZone: string): (iso: string | undefined) => string {
  const f = formatter('it-IT', timeZone, { day: '2-digit', month: '2-digit', year: 'numeric', hour: '2-digit', minute: '2-digit' });
  return (iso) => (iso ? f.format(new Date(iso)).replace(',', '') : '');
}

/**
 * A calendar date of an order (`data_ordine`, `data_consegna`: `2026-11-28`) as `28/11/2026`. A date has no time
 * zone, so it is rewritten, never converted; anything not shaped like a date is shown as it is.
 */
export function dateLabel(day: string | undefined): string {
  if (!day) return '';
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  return m ? `${m[3]}/${m[2]}/${m[1]}` : day;
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
  'invio.correggi_registra': 'Correzione registrata', 'invio.correggi_rifiutato': 'Correzione rifiutata',
  'ordini.esporta': 'Ordini esportati in CSV', 'cliente.aggiungi': 'Cliente attivato', 'cliente.ruota_chiave': 'Nuova chiave API',
  'cliente.reimposta_password': 'Nuova password cliente', 'articoli.importa': 'Catalogo articoli importato',
  'cliente.disattiva': 'Cliente disattivato', 'cliente.riattiva': 'Cliente riattivato', 'sito.aggiungi': 'Sito di produzione aggiunto',
  'connettore.aggiungi': 'Connettore attivato', 'connettore.ruota_chiave': 'Nuova chiave del connettore',
  'cliente.notifiche_attive': 'Notifiche e-mail dello stato attivate', 'cliente.notifiche_spente': 'Notifiche e-mail dello stato disattivate',
  'cliente.mittenti': 'Mittenti autorizzati per e-mail modificati',
  'posta.rilascia': 'Messaggio trattenuto rilasciato', 'posta.scarta': 'Messaggio trattenuto scartato',
  'cliente.peppol': 'Identificativi Peppol modificati', 'articoli.xref_importa': 'Corrispondenze dei codici articolo importate',
  'articolo.disattiva': 'Articolo disattivato', 'articolo.riattiva': 'Articolo riattivato', 'articolo.rimuovi': 'Articolo rimosso',
  'ordine.annulla': 'Ordine annullato per conto del cliente', 'richiesta.accetta': 'Richiesta accettata', 'richiesta.rifiuta': 'Richiesta rifiutata',
};

const EVENTS: Record<OrderEventType, string> = {
  'ordine.registrato': 'Ordine registrato', 'ordine.rifiutato': 'Ordine rifiutato', 'ordine.stato_aggiornato': 'Stato di produzione aggiornato',
  'ordine.modificato': 'Ordine modificato', 'ordine.annullato': 'Ordine annullato', 'ordine.richiesta': 'Richiesta per la produzione',
  'ordine.richiesta_esito': 'Esito della richiesta',
};

/** An outbox event's type as a person reads it (the webhook's receiver gets the key). */
export function eventLabel(type: string): string {
  return EVENTS[type as OrderEventType] ?? type;
}

/** Who did it: an operator's e-mail as it is; the command line and a customer in words. */
export function actorLabel(actor: string): string {
  if (actor === 'cli') return 'riga di comando';
  return actor.startsWith('cliente:') ? `cliente ${actor.slice('cliente:'.length)}` : actor;
}

export function actionLabel(action: string): string {
  return ACTIONS[action] ?? action;
}

const DETAILS: Record<string, string> = {
  nuovo_invio: 'Nuovo invio', ordine_nel_file: 'Ordine nel file', riferimento_ordine: 'Riferimento', numero_ordine: 'Numero ordine',
  role: 'Ruolo', esito: 'Esito', righe: 'Righe', nome: 'Nome', formato: 'Formato', siti: 'Siti', address: 'Indirizzo',
  file: 'File', errore: 'Errore', motivo: 'Motivo', nota: 'Nota', id_richiesta: 'Richiesta', tipo: 'Tipo', cliente: 'Cliente',
};

export function detailLabel(key: string): string {
  return DETAILS[key] ?? key;
}

const ESITI: Record<string, string> = { ok: 'accettato', errore: 'rifiutato' };

/** An audit detail's value as a person reads it: roles and outcomes in Italian, nothing as `null`. */
export function detailValue(key: string, v: unknown): string {
  if (v === null || v === undefined) return '—';
  if (key === 'role') return roleLabel(String(v));
  if (key === 'esito') return ESITI[String(v)] ?? String(v);
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
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
