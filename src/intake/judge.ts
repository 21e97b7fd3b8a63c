/**
 * Judging a stored submission: decode → stage A → stage B → register, giving one OrderOutcome per order.
 * Pure with respect to the submission: judging the same submission again gives the same outcome (the store answers
 * "created" to the submission that registered an order), which is what makes crash recovery and reprocessing safe.
 */
import { v7 as uuidv7 } from 'uuid';
import { IntakeError, isIntakeError } from '../errors.ts';
import { decodeOrders } from './formats/index.ts';
import { contentHash, yearIn } from './register.ts';
import { validateBusiness, validateStructure, type Catalog } from './validate.ts';
import type { Order, OrderOutcome, Outcome, Principal, StoredSubmission } from './types.ts';
import type { RegisterItem, Store } from '../store/store.ts';

/** Orders in one file: bounds the work one upload can demand; a real export holds far fewer. */
export const MAX_ORDERS_PER_FILE = 100_000;

export interface JudgeDeps {
  store: Store;
  timeZone: string;
  now: () => Date;
}

function principalOf(s: StoredSubmission): Principal {
  return { customerId: s.customerId, customerCode: s.customerCode, sites: s.sites, connectorId: s.connectorId };
}

function fileError(submissionId: string, e: IntakeError): Outcome {
  return { submissionId, esito: 'errore', fileError: { code: e.code, message: e.messages }, orders: [] };
}

function decode(s: StoredSubmission): unknown[] {
  const candidates = decodeOrders({ raw: s.raw, mediaType: s.mediaType, fileName: s.fileName, charset: s.charset });
  if (s.singleOrder && candidates.length > 1) {
    throw new IntakeError('TOO_MANY_ORDERS', [
      `the request holds ${candidates.length} orders: send one order per request (files with several orders can be sent by e-mail or FTP/SFTP)`,
    ]);
  }
  if (candidates.length > MAX_ORDERS_PER_FILE) {
    throw new IntakeError('NOT_PARSEABLE', [`a file must not hold more than ${MAX_ORDERS_PER_FILE} orders`]);
  }
  return candidates;
}

async function loadCatalog(store: Store, orders: Order[]): Promise<Catalog> {
  const articles = new Set<string>();
  const units = new Set<string>();
  for (const o of orders) for (const r of o.righe) {
    articles.add(r.codice_articolo);
    units.add(r.unita_misura);
  }
  const [a, u] = await Promise.all([store.knownArticles([...articles]), store.knownUnits([...units])]);
  return { articles: a, units: u };
}

export async function judge(deps: JudgeDeps, s: StoredSubmission): Promise<Outcome> {
  let candidates: unknown[];
  try {
    candidates = decode(s);
  } catch (e) {
    if (isIntakeError(e)) return fileError(s.id, e);
    throw e;
  }
  const principal = principalOf(s);
  const outcomes: OrderOutcome[] = new Array(candidates.length);
  const valid: { index: number; order: Order }[] = [];
  candidates.forEach((c, index) => {
    const a = validateStructure(c);
    if (a.ok) valid.push({ index, order: a.order });
    else outcomes[index] = { index, codice_cliente: a.codice_cliente, riferimento_ordine: a.riferimento_ordine, esito: 'errore', code: 'VALIDATION', message: a.messages };
  });

  const catalog = await loadCatalog(deps.store, valid.map((v) => v.order));
  const now = deps.now();
  const year = yearIn(now, deps.timeZone);
  const items: { index: number; item: RegisterItem }[] = [];
  // The same identity twice in one file: the store would answer "created" to both (same submission), so the
  // file itself is checked first; a repeat with other content is a conflict, an identical repeat a duplicate.
  const seen = new Map<string, { index: number; hash: string }>();
  const repeats: { index: number; of: number }[] = [];
  for (const { index, order } of valid) {
    const base = { index, codice_cliente: order.codice_cliente, riferimento_ordine: order.riferimento_ordine, sito_produzione: s.site };
    const b = validateBusiness(order, principal, catalog);
    if (b.kind === 'forbidden') {
      outcomes[index] = {
        ...base, esito: 'errore', code: 'FORBIDDEN_CUSTOMER', errori: b.errori,
        message: [`codice_cliente "${order.codice_cliente}" does not belong to the authenticated customer`],
      };
      continue;
    }
    if (b.kind === 'errors') {
      outcomes[index] = { ...base, esito: 'errore', code: 'BUSINESS', errori: b.errori };
      continue;
    }
    const hash = contentHash(order);
    const first = seen.get(order.riferimento_ordine);
    if (first) {
      if (first.hash === hash) repeats.push({ index, of: first.index });
      else outcomes[index] = {
        ...base, esito: 'errore', code: 'CONFLICT',
        errori: [{ campo: 'riferimento_ordine', messaggio: `Il riferimento "${order.riferimento_ordine}" compare più volte nel file con contenuti diversi` }],
      };
      continue;
    }
    seen.set(order.riferimento_ordine, { index, hash });
    items.push({
      index,
      item: {
        id: (s.singleOrder && s.reservedOrderId) || uuidv7(),
        customerId: s.customerId, submissionId: s.id, channel: s.channel, site: s.site,
        year, contentHash: hash, order, registeredAt: now.toISOString(),
      },
    });
  }

  const results = items.length ? await deps.store.registerOrders(items.map((i) => i.item)) : [];
  results.forEach((r, k) => {
    const { index, item } = items[k]!;
    const base = { index, codice_cliente: item.order.codice_cliente, riferimento_ordine: item.order.riferimento_ordine, sito_produzione: s.site };
    if (r.status === 'conflict') {
      outcomes[index] = {
        ...base, esito: 'errore', code: 'CONFLICT',
        errori: [{ campo: 'riferimento_ordine', messaggio: `L'ordine "${item.order.riferimento_ordine}" è già stato registrato (numero ${r.numero_ordine}) con un contenuto diverso` }],
      };
    } else {
      outcomes[index] = { ...base, esito: 'ok', duplicate: r.status === 'duplicate', id_ordine: r.id_ordine, numero_ordine: r.numero_ordine };
    }
  });
  for (const { index, of } of repeats) {
    const o = outcomes[of]!;
    outcomes[index] = o.esito === 'ok' ? { ...o, index, duplicate: true } : { ...o, index };
  }
  for (const o of outcomes) if (o && o.sito_produzione === undefined) delete o.sito_produzione;
  const esito = outcomes.length > 0 && outcomes.every((o) => o.esito === 'ok') ? 'ok' : 'errore';
  return { submissionId: s.id, esito, orders: outcomes };
}
