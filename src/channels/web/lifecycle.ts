/**
 * An order's lifecycle as the console and the portal show it: every version whole with what changed from the one
 * before (lines added, removed, quantity changed; dates and note), the requests production decides, and whether the
 * customer may still change or cancel it. The rules themselves are in src/intake/lifecycle.ts; here they are only
 * read, to offer the buttons that would not be refused.
 */
import type { ChangeRequest, LifecycleStore, StoredVersion } from '../../domain/store/lifecycle.ts';
import type { Order, OrderLine, RegisteredOrder } from '../../domain/types.ts';
import { writeNumber } from '../../intake/formats/people-values.ts';
import { MAX_NOTE_CHARS } from '../../domain/types.ts';
import { str } from './render.ts';

/** One line of a version as the comparison shows it: `removed` lines are the previous version's, struck through. */
export interface VersionLine {
  codice_articolo: string;
  quantita: number;
  unita_misura: string;
  mark: 'same' | 'added' | 'removed' | 'changed';
  /** The previous version's quantity of a changed line. */
  before?: number;
}

export interface VersionColumn {
  versione: number;
  ricevuto_il: string;
  canale: string;
  azione: 'nuovo' | 'modifica';
  current: boolean;
  data_ordine: string;
  data_consegna?: string;
  note?: string;
  /** Which of the order's own fields differ from the previous version. */
  changed: { data_ordine: boolean; data_consegna: boolean; note: boolean };
  righe: VersionLine[];
}

/** A request as the pages list it; a waiting change carries what it would make of the current version. */
export type RequestRow = ChangeRequest & { proposed?: Omit<VersionColumn, 'versione' | 'ricevuto_il' | 'canale' | 'azione' | 'current'> };

export interface LifecyclePage {
  versions: VersionColumn[];
  requests: RequestRow[];
  pending?: ChangeRequest;
  /** Whether a change or a cancellation would be taken (at once or as a request); `why` says why not. */
  open: boolean;
  why?: string;
}

const key = (l: OrderLine) => `${l.codice_articolo}\u0000${l.unita_misura}`;

/**
 * The lines of `now` against `before`, matched by article and unit (the k-th occurrence with the k-th, for an
 * article ordered twice): a quantity that differs is `changed`, a line only in `now` `added`, one only in `before`
 * `removed` (listed after the others).
 */
export function compareLines(before: readonly OrderLine[] | undefined, now: readonly OrderLine[]): VersionLine[] {
  if (!before) return now.map((l) => ({ ...plain(l), mark: 'same' }));
  const left = new Map<string, OrderLine[]>();
  for (const l of before) left.set(key(l), [...(left.get(key(l)) ?? []), l]);
  const out: VersionLine[] = now.map((l) => {
    const was = left.get(key(l))?.shift();
    if (!was) return { ...plain(l), mark: 'added' };
    return was.quantita === l.quantita ? { ...plain(l), mark: 'same' } : { ...plain(l), mark: 'changed', before: was.quantita };
  });
  for (const rest of left.values()) for (const l of rest) out.push({ ...plain(l), mark: 'removed' });
  return out;
}

function plain(l: OrderLine): Pick<VersionLine, 'codice_articolo' | 'quantita' | 'unita_misura'> {
  return { codice_articolo: l.codice_articolo, quantita: l.quantita, unita_misura: l.unita_misura };
}

function contentOf(o: RegisteredOrder): Order {
  const c: Order = { codice_cliente: o.codice_cliente, riferimento_ordine: o.riferimento_ordine, data_ordine: o.data_ordine, righe: o.righe };
  if (o.data_consegna !== undefined) c.data_consegna = o.data_consegna;
  if (o.note !== undefined) c.note = o.note;
  return c;
}

/** `now`'s own fields and lines, marked where they differ from `prev` (nothing marked without one). */
function compared(prev: Order | undefined, now: Order): RequestRow['proposed'] & object {
  const c: RequestRow['proposed'] & object = {
    data_ordine: now.data_ordine,
    changed: {
      data_ordine: prev !== undefined && prev.data_ordine !== now.data_ordine,
      data_consegna: prev !== undefined && prev.data_consegna !== now.data_consegna,
      note: prev !== undefined && prev.note !== now.note,
    },
    righe: compareLines(prev?.righe, now.righe),
  };
  if (now.data_consegna !== undefined) c.data_consegna = now.data_consegna;
  if (now.note !== undefined) c.note = now.note;
  return c;
}

const LOCKED: Record<string, string> = {
  spedito: "L'ordine è già stato spedito: non si può più modificare né annullare.",
  consegnato: "L'ordine è già stato consegnato: non si può più modificare né annullare.",
  annullato: "L'ordine è annullato.",
};

export async function lifecyclePage(store: Pick<LifecycleStore, 'orderVersions' | 'orderRequests'>, o: RegisteredOrder): Promise<LifecyclePage> {
  const [stored, requests] = await Promise.all([store.orderVersions(o.id_ordine), store.orderRequests(o.id_ordine)]);
  const all: (Pick<StoredVersion, 'versione' | 'ricevuto_il' | 'canale' | 'azione' | 'order'> & { current: boolean })[] = [
    ...stored.map((v) => ({ ...v, current: false })),
    {
      versione: o.versione, ricevuto_il: o.versionAt ?? o.registeredAt, canale: o.versionChannel ?? o.channel,
      azione: o.versione === 1 ? 'nuovo' : 'modifica', order: contentOf(o), current: true,
    },
  ];
  const versions = all.map((v, i): VersionColumn => ({
    versione: v.versione, ricevuto_il: v.ricevuto_il, canale: v.canale, azione: v.azione, current: v.current,
    ...compared(i > 0 ? all[i - 1]!.order : undefined, v.order),
  }));
  const rows = requests.map((r): RequestRow => (r.stato_richiesta === 'in_attesa' && r.order ? { ...r, proposed: compared(contentOf(o), r.order) } : r));
  const pending = rows.find((r) => r.stato_richiesta === 'in_attesa');
  const why = (o.productionState && LOCKED[o.productionState])
    ?? (pending ? `È in attesa una richiesta di ${pending.tipo === 'modifica' ? 'modifica' : 'annullamento'}: si può cambiare di nuovo l'ordine dopo la decisione della produzione.` : undefined);
  return { versions, requests: rows, ...(pending ? { pending } : {}), open: why === undefined, ...(why ? { why } : {}) };
}

/** A request's state as a badge. */
export function requestLabel(r: Pick<ChangeRequest, 'stato_richiesta'>): { text: string; kind: 'ok' | 'err' | 'wait' } {
  if (r.stato_richiesta === 'accettata') return { text: 'Accettata', kind: 'ok' };
  if (r.stato_richiesta === 'rifiutata') return { text: 'Rifiutata', kind: 'err' };
  return { text: 'In attesa della produzione', kind: 'wait' };
}

/** The current version as the order form's values (quantities written as people read them back: `1500`, `2,5`). */
export function formOfOrder(o: RegisteredOrder) {
  return {
    riferimento_ordine: o.riferimento_ordine, data_ordine: o.data_ordine, data_consegna: o.data_consegna ?? '', note: o.note ?? '',
    righe: o.righe.map((l) => ({ codice_articolo: l.codice_articolo, quantita: writeNumber(l.quantita), unita_misura: l.unita_misura })),
  };
}

/**
 * The reason typed in a cancellation form, line breaks as \n; cut well above the limit stage A applies to `motivo`
 * (the note's), so that the intake, not the form, says when it is too long.
 */
export function reasonOf(v: unknown): string | undefined {
  return str(typeof v === 'string' ? v.replace(/\r\n?/g, '\n') : v, 4 * MAX_NOTE_CHARS);
}
