/**
 * Judging a stored submission: decode → stage A → stage B → register, giving one OrderOutcome per order.
 * Pure with respect to the submission: judging the same submission again gives the same outcome (the store answers
 * "created" to the submission that registered an order, and a resumed judgement answers "registered" for every order
 * the submission registered before, whatever it would decide now), which is what makes crash recovery, a takeover
 * and reprocessing safe.
 */
import { uuidv7 } from '../domain/uuid7.ts';
import { IntakeError, isIntakeError } from '../domain/errors.ts';
import { explainLines } from './connectors/lines.ts';
import { decodeConnectorSubmission, type ConnectorOrder } from './connectors/submission.ts';
import { serialiseDetails } from './connectors/ticket-details.ts';
import { arraySource, fileBytes, fileRowsOf, openOrdersYielding, sheetPlacesOf, type OrderSource } from './formats/index.ts';
import { contentHash, yearIn } from './register.ts';
import { changeOutcome } from './lifecycle-outcome.ts';
import { okOutcome, registeredOutcome } from '../domain/registered-outcome.ts';
import { SeenOrders } from './seen-orders.ts';
import { validateBusiness, validateStructure, type Catalog } from './validate.ts';
import { documentCampo, documentDetails, documentErrors, NO_PEPPOL, resolveUbl, sequenceOf, ublOf, type PeppolSettings } from './ubl-resolve.ts';
import type { Order, OrderOutcome, Outcome, Principal, StoredSubmission } from '../domain/types.ts';
import { hasAttemptRow } from '../domain/store/records.ts';
import type { RegisterItem } from '../domain/store/store.ts';
import type { JudgeStore } from '../domain/store/ports.ts';

/**
 * Orders in one file: bounds the work one upload can demand; a real export holds far fewer. Customers read it in
 * docs/customers/limiti.md (a test checks the figure there).
 */
export const MAX_ORDERS_PER_FILE = 100_000;

/** The Italian message of FILE_TOO_MANY_ORDERS, shown in outcome files and reply e-mails. */
export function tooManyOrdersMessage(max = MAX_ORDERS_PER_FILE): string {
  return `il file contiene più di ${max.toLocaleString('it-IT')} ordini, il massimo per un singolo file: nessun ordine è stato registrato; dividere gli ordini in più file e inviarli di nuovo`;
}

export interface JudgeDeps {
  store: JudgeStore;
  timeZone: string;
  now: () => Date;
  /**
   * The submission may have been judged before (taken up again after a crash or a takeover, or reprocessed): the
   * orders it registered then are looked up per batch and answered as registered, whatever judging would decide now.
   * Left unset for a submission judged straight after it was saved, which cannot have registered anything.
   */
  resumed?: boolean;
  /** Our Peppol identifier and unit mapping, for UBL documents (default: none). */
  peppol?: PeppolSettings;
}

function principalOf(s: StoredSubmission): Principal {
  return { customerId: s.customerId, customerCode: s.customerCode, sites: s.sites, connectorId: s.connectorId };
}

function fileError(submissionId: string, e: IntakeError): Outcome {
  return { submissionId, esito: 'errore', fileError: { code: e.code, message: e.messages }, orders: [] };
}

/**
 * Orders judged and registered together: one catalogue lookup and one registerOrders transaction each. Bounds
 * the memory of a large file (a batch is held, not the file) and how long the event loop is held at a time
 * (other channels are served between batches); 1,000 orders keep the per-transaction cost small.
 */
export const JUDGE_BATCH_ORDERS = 1000;

/**
 * Order lines in one batch, whatever its orders: a batch ends at JUDGE_BATCH_ORDERS orders or once it holds this
 * many lines (as many as 1,000 orders of 10 lines). Counted in orders only, a file of 200-line orders made batches
 * of 200,000 lines, which the batch, its copy for the SQLite write thread and that thread's copy held at once:
 * +180 MiB at the peak for a 48 MiB file (bench/memory/whole-path-phases.ts), +90 MiB with this bound.
 */
export const JUDGE_BATCH_LINES = 10_000;

/** The lines of a candidate not yet validated (a malformed one counts as one). */
function linesOf(candidate: unknown): number {
  const righe = (candidate as { righe?: unknown } | null)?.righe;
  return Array.isArray(righe) ? Math.max(1, righe.length) : 1;
}

/** Let timers and sockets be served before going on (setImmediate runs after pending I/O callbacks). */
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The order candidates, in file order, and the production site they belong to (connectors name one; other
 * channels none). A CSV file is checked whole here and its orders read as they are judged.
 */
async function decode(store: JudgeStore, s: StoredSubmission, timeZone: string): Promise<{ source: OrderSource; site?: string; connector?: ConnectorOrder[] }> {
  const { source, site, connector } = s.connectorId === undefined
    ? {
      source: await openOrdersYielding(
        // An upload in a local file (rawFile, as just saved) is read from it in pieces: never whole in memory.
        s.rawFile
          ? { bytes: fileBytes(s.rawFile.path, s.rawFile.size), mediaType: s.mediaType, fileName: s.fileName, charset: s.charset }
          : { raw: s.raw, mediaType: s.mediaType, fileName: s.fileName, charset: s.charset },
        { maxOrders: MAX_ORDERS_PER_FILE, yieldNow: yieldToEventLoop },
      ),
      site: s.site,
      connector: undefined,
    }
    : await decodeConnectorSubmission(store, s, timeZone).then(({ candidates, site, orders }) => ({ source: arraySource(candidates), site, connector: orders }));
  if (s.singleOrder && source.count > 1) {
    throw new IntakeError('TOO_MANY_ORDERS', [
      `the request holds ${source.count} orders: send one order per request (files with several orders can be sent by e-mail or FTP/SFTP)`,
    ]);
  }
  if (source.count > MAX_ORDERS_PER_FILE) {
    throw new IntakeError('FILE_TOO_MANY_ORDERS', [tooManyOrdersMessage()]);
  }
  return { source, site, ...(connector ? { connector } : {}) };
}

async function loadCatalog(store: JudgeStore, orders: Order[]): Promise<Catalog> {
  const articles = new Set<string>();
  const units = new Set<string>();
  for (const o of orders) for (const r of o.righe) {
    articles.add(r.codice_articolo);
    units.add(r.unita_misura);
  }
  const [a, u] = await Promise.all([store.knownArticles([...articles]), store.knownUnits([...units])]);
  // Only for codes the catalog lacks (rare): whether an operator took them out of service, to say so.
  const missing = [...articles].filter((c) => !a.has(c));
  const inactive = missing.length > 0 ? await store.inactiveArticles(missing) : new Set<string>();
  return { articles: a, units: u, inactive };
}

/** Orders judged, by what became of them (what metrics and the log count). */
export interface Tally {
  accepted: number;
  duplicate: number;
  rejected: number;
}

/** One order's fate added to a tally. */
function count(t: Tally, o: OrderOutcome): void {
  if (o.esito !== 'ok') t.rejected++;
  else if (o.duplicate) t.duplicate++;
  else t.accepted++;
}

/** The tally of a whole outcome (one judged without `tally`: every order is there). */
export function tallyOf(outcome: Outcome): Tally {
  const t: Tally = { accepted: 0, duplicate: 0, rejected: 0 };
  for (const o of outcome.orders) count(t, o);
  return t;
}

/**
 * A judgement. `outcome` is the whole Outcome, except when `tally` is set: the orders of that file (more than one
 * batch) were written to the store as order attempts batch by batch while it was judged, and `outcome.orders` holds,
 * at their positions, only the refused ones and those without a reference (holes elsewhere): what
 * Store.completeSubmission takes with `{ attemptsRecorded: true }`. Keeping every order's outcome until the end cost a
 * large file some 260 bytes per order, held through judging and copied whole to the store at the end.
 */
export interface Judgement {
  outcome: Outcome;
  tally?: Tally;
}

/** What judging a file keeps from one batch to the next. */
interface FileState {
  deps: JudgeDeps;
  s: StoredSubmission;
  principal: Principal;
  site?: string;
  now: Date;
  year: number;
  /**
   * The outcome of every order, by position; for a file judged with its attempts recorded (`tally` set) only the
   * refused orders and those without a reference (what the store keeps in the outcome and writes events for),
   * holes elsewhere.
   */
  outcomes: OrderOutcome[];
  /** Set for a file of more than one batch: each batch's attempts are written as it is judged (recordBatch). */
  tally?: Tally;
  /**
   * The same identity twice in one file: the store would answer "created" to both (same submission), so the
   * file itself is checked first; a repeat with other content is a conflict, an identical repeat a duplicate.
   * Kept for the whole file, since a repeat may come batches later.
   */
  seen: SeenOrders;
  repeats: { index: number; of: number }[];
  /** Connector submissions: each order's customer, product keys and ticket details (see connectors/submission.ts). */
  connector?: ConnectorOrder[];
}

/**
 * The fields every outcome of a valid order starts with. `sito_produzione` is left out, not set to undefined, when
 * there is no site: deleting it afterwards (as was done) turns each of a large file's outcomes into a dictionary-mode
 * object of about half a kilobyte, for 100,000 orders some 40 MiB held until the outcome is recorded.
 */
function outcomeBase(index: number, order: Order, site: string | undefined) {
  return site === undefined
    ? { index, codice_cliente: order.codice_cliente, riferimento_ordine: order.riferimento_ordine }
    : { index, codice_cliente: order.codice_cliente, riferimento_ordine: order.riferimento_ordine, sito_produzione: site };
}

/**
 * Stage B of one order, or its refusal for a connector's customer it may not send for: the outcome of a refused
 * order, undefined for one to register.
 */
function refused(order: Order, base: ReturnType<typeof outcomeBase>, co: ConnectorOrder | undefined, principal: Principal, catalog: Catalog): OrderOutcome | undefined {
  if (co?.forbidden !== undefined && co.inactive) {
    // A deactivated customer: the reason in Italian in both shapes, 403 (src/customers/active.ts).
    return { ...base, esito: 'errore', code: 'CUSTOMER_INACTIVE', errori: [{ campo: 'codice_cliente', messaggio: co.forbidden }], message: [co.forbidden] };
  }
  if (co?.forbidden !== undefined) {
    return {
      ...base, esito: 'errore', code: 'FORBIDDEN_CUSTOMER', errori: [{ campo: 'codice_cliente', messaggio: co.forbidden }],
      message: [`codice_cliente "${order.codice_cliente}" does not belong to the authenticated customer: it is not one of this connector's customers, nor in its customer table`],
    };
  }
  const b = validateBusiness(order, principal, catalog);
  if (b.kind === 'forbidden') {
    return {
      ...base, esito: 'errore', code: 'FORBIDDEN_CUSTOMER', errori: b.errori,
      message: [`codice_cliente "${order.codice_cliente}" does not belong to the authenticated customer`],
    };
  }
  if (b.kind === 'errors') return { ...base, esito: 'errore', code: 'BUSINESS', errori: explainLines(b.errori, co?.notes?.lineKeys) };
  return undefined;
}

/** The identities among `valid` that submission `id` registered when it was judged before: references by customer code. */
async function registeredEarlier(store: JudgeStore, id: string, valid: readonly { order: Order }[]): Promise<Map<string, Set<string>>> {
  const byCustomer = new Map<string, Set<string>>();
  for (const r of await store.registeredBySubmission(id, valid.map((v) => v.order.riferimento_ordine))) {
    let refs = byCustomer.get(r.codice_cliente);
    if (!refs) byCustomer.set(r.codice_cliente, (refs = new Set()));
    refs.add(r.riferimento_ordine);
  }
  return byCustomer;
}

/**
 * The order desk's correction of a refused order (console, meta `corregge`) whose reference is registered already, by
 * an earlier correction or by the customer sending it again: the order stands as registered, and the answer is that
 * order, a duplicate, whatever the correction holds. Refusing it as a conflict would tell every subscriber that an
 * order registered a moment ago was refused (`ordine.rifiutato`). Settled orders leave `valid`.
 */
async function settleCorrections(f: FileState, valid: { index: number; order: Order }[]): Promise<void> {
  const { s } = f;
  if (s.channel !== 'console' || s.meta.corregge === undefined) return;
  for (let k = valid.length - 1; k >= 0; k--) {
    const { index, order } = valid[k]!;
    const existing = await f.deps.store.getOrderByRef(s.customerId, order.riferimento_ordine);
    if (!existing) continue;
    f.outcomes[index] = okOutcome(index, order, f.site, { status: 'duplicate', id_ordine: existing.id_ordine, numero_ordine: existing.numero_ordine });
    valid.splice(k, 1);
  }
}

/** Stage A, stage B and registration of consecutive orders starting at file position `first`. */
async function judgeBatch(f: FileState, first: number, candidates: readonly unknown[]): Promise<void> {
  const { deps, s, site, outcomes } = f;
  const valid: { index: number; order: Order }[] = [];
  // UBL documents name their buyer and items by identifiers only the store can turn into codes.
  const unresolved = await resolveUbl(deps.store, f.principal, deps.peppol ?? NO_PEPPOL, candidates, first);
  candidates.forEach((c, k) => {
    const index = first + k;
    const refusal = unresolved.get(k);
    if (refusal) {
      outcomes[index] = refusal;
      return;
    }
    const a = validateStructure(asked(s, c));
    if (a.ok) valid.push({ index, order: a.order });
    else {
      outcomes[index] = {
        index, codice_cliente: a.codice_cliente, riferimento_ordine: a.riferimento_ordine, esito: 'errore', code: 'VALIDATION', message: a.messages,
        // Why a value written by a person could not be read, for the replies and pages people read (REST keeps shape A).
        ...(a.details ? { errori: a.details } : {}),
      };
    }
  });

  await settleCorrections(f, valid);
  const catalog = await loadCatalog(deps.store, valid.map((v) => v.order));
  const registered = deps.resumed && valid.length > 0 ? await registeredEarlier(deps.store, s.id, valid) : undefined;
  const items: { index: number; item: RegisterItem; repeat?: boolean }[] = [];
  const changes: { index: number; order: Order; customerId: string }[] = [];
  for (const { index, order } of valid) {
    const base = outcomeBase(index, order, site);
    const co = f.connector?.[index];
    // A connector's order belongs to the customer its ticket named (one of those the connector is bound to).
    const principal = co?.customer ? { customerId: co.customer.id, customerCode: co.customer.code } : f.principal;
    // Registered by this submission when it was judged before: a fact, whatever the checks below would say now (a
    // connector's customer deactivated since, say). Registering it again answers "created" with its number.
    if (registered?.get(order.codice_cliente)?.has(order.riferimento_ordine) !== true) {
      const refusal = refused(order, base, co, principal, catalog);
      if (refusal) {
        outcomes[index] = refusal;
        continue;
      }
    }
    // A change or cancellation acts on a registered order: after this batch's registrations (src/intake/lifecycle.ts).
    if (order.azione !== undefined) {
      changes.push({ index, order, customerId: principal.customerId });
      continue;
    }
    const hash = contentHash(order);
    // The identity is (customer, reference): a connector serving several customers may bring the same reference twice.
    const earlier = f.seen.first(order.codice_cliente, order.riferimento_ordine);
    const same = earlier !== undefined && f.seen.sameContent(earlier, hash);
    // A repeat whose first occurrence was in an earlier batch of a file whose attempts are recorded has no outcome
    // here to copy: it is registered again and the store gives the first one's answer (same submission: "created"
    // with the same number, which a repeat shows as a duplicate; or the same duplicate or conflict).
    const again = same && earlier < first && outcomes[earlier] === undefined;
    if (earlier !== undefined && !again) {
      if (same) f.repeats.push({ index, of: earlier });
      else outcomes[index] = {
        ...base, esito: 'errore', code: 'CONFLICT',
        errori: [{ campo: 'riferimento_ordine', messaggio: `Il riferimento "${order.riferimento_ordine}" compare più volte nel file con contenuti diversi` }],
      };
      continue;
    }
    if (!again) f.seen.add(order.codice_cliente, order.riferimento_ordine, index, hash);
    items.push({
      index,
      ...(again ? { repeat: true } : {}),
      item: {
        id: (s.singleOrder && s.reservedOrderId) || uuidv7(),
        customerId: principal.customerId, submissionId: s.id, channel: s.channel, site,
        year: f.year, contentHash: hash, order, registeredAt: f.now.toISOString(),
      },
    });
  }

  // One transaction per batch: a crash between batches leaves the earlier ones registered by this submission,
  // and judging it again (resumed) answers "created" for them, so the outcome is the same.
  const results = items.length ? await deps.store.registerOrders(items.map((i) => i.item)) : [];
  await keepTickets(f, items, results);
  await keepDocuments(f, items, results, candidates, first);
  results.forEach((r, k) => {
    const { index, item, repeat } = items[k]!;
    outcomes[index] = registeredOutcome(index, item.order, site, r, repeat);
  });
  // One at a time, in file order: two changes of one order in a file make two versions, the later one last.
  for (const c of changes) {
    outcomes[c.index] = await changeOutcome({ store: deps.store, now: deps.now }, outcomeBase(c.index, c.order, site), c.order, c.customerId, s, target(s));
  }
  settleRepeats(f);
  const end = first + candidates.length;
  for (let i = first; i < end; i++) {
    const owner = f.connector?.[i]?.attemptOwner;
    if (owner !== undefined) outcomes[i]!.customerId = owner;
    // A refused order of a CSV file says where its lines are, for the people who must correct them (repeats included:
    // each its own rows, not its first occurrence's).
    const refused = outcomes[i]!.esito === 'errore';
    const rows = refused ? fileRowsOf(candidates[i - first]) : undefined;
    if (rows !== undefined) outcomes[i]!.righe_file = rows;
    inDocumentTerms(outcomes[i]!, candidates[i - first]);
    // A spreadsheet's order says the cell of each value.
    const sheet = refused ? sheetPlacesOf(candidates[i - first]) : undefined;
    if (sheet !== undefined) outcomes[i]!.foglio_file = sheet;
  }
  await recordSequences(f, candidates, first);
  if (f.tally) await recordBatch(f, first, end);
}

/**
 * What a UBL document says beyond the order (item names, prices, the delivery place, the buyer's contact, references),
 * kept with the order it registered, as the connectors' ticket details are (an order keeps the first it got).
 */
async function keepDocuments(f: FileState, items: { index: number; item: RegisterItem }[], results: { status: string; id_ordine: string }[], candidates: readonly unknown[], first: number): Promise<void> {
  if (f.connector) return;
  const rows: { orderId: string; details: string }[] = [];
  results.forEach((r, k) => {
    const info = ublOf(candidates[items[k]!.index - first]);
    if (info && r.status === 'created') rows.push({ orderId: r.id_ordine, details: JSON.stringify(documentDetails(info)) });
  });
  if (rows.length > 0) await f.deps.store.saveOrderTickets(rows);
}

/** The SequenceNumberID of each UBL Order Change the batch applied or handed to production, for the next one's check. */
async function recordSequences(f: FileState, candidates: readonly unknown[], first: number): Promise<void> {
  for (const [k, c] of candidates.entries()) {
    const info = ublOf(c);
    const seq = info && sequenceOf(info);
    const o = f.outcomes[first + k];
    if (seq !== undefined && o?.esito === 'ok' && o.id_ordine !== undefined) await f.deps.store.recordUblChangeSequence(o.id_ordine, seq);
  }
}

/** A refused UBL document's errors name its own elements (`OrderLine[2]/LineItem/Quantity/@unitCode`), not our fields. */
function inDocumentTerms(o: OrderOutcome, candidate: unknown): void {
  const info = o.esito === 'errore' ? ublOf(candidate) : undefined;
  if (!info) return;
  if (o.errori) o.errori = o.errori.map((e) => ({ ...e, campo: documentCampo(e.campo, info) }));
  else if (o.code === 'VALIDATION' && o.message) o.errori = documentErrors(o.message, info);
}

/**
 * A call that names its action in the request rather than in the order (REST's `PUT /api/v1/ordini/{id}` and
 * `POST …/{id}/annulla`): the submission's meta `azione` is the order's, whatever the body says.
 */
function asked(s: StoredSubmission, candidate: unknown): unknown {
  const azione = s.meta.azione;
  if (azione === undefined || typeof candidate !== 'object' || candidate === null || Array.isArray(candidate)) return candidate;
  return { ...candidate, azione };
}

/**
 * The order such a call names by its id, the version its If-Match expects, and who acts: the console's submissions
 * name the operator acting on the customer's behalf (only the console sets `operatore`; any other channel is the
 * customer).
 */
function target(s: StoredSubmission): { orderId?: string; ifMatch?: number; by?: string } {
  const t: { orderId?: string; ifMatch?: number; by?: string } = {};
  // Only a call that names its action names its order by id: a console correction's meta `ordine` is the position of
  // the order in the refused file it corrects, not an id.
  if (s.meta.azione !== undefined && s.meta.ordine !== undefined) t.orderId = s.meta.ordine;
  if (s.meta.azione !== undefined && s.meta.ifMatch !== undefined) t.ifMatch = Number(s.meta.ifMatch);
  if (s.channel === 'console' && s.meta.operatore !== undefined) t.by = `operatore:${s.meta.operatore}`;
  return t;
}

/** Repeats within the file copy the outcome of their first occurrence (in this batch or an earlier one still held). */
function settleRepeats(f: FileState): void {
  const { outcomes } = f;
  for (const { index, of } of f.repeats) {
    const o = outcomes[of]!;
    outcomes[index] = o.esito === 'ok' ? { ...o, index, duplicate: true } : { ...o, index };
  }
  f.repeats = [];
}

/**
 * The batch's attempts to the store, then counted and let go: only the refused orders and those without a reference
 * stay (the store keeps them in the outcome and writes the refusals' events with it).
 */
async function recordBatch(f: FileState, first: number, end: number): Promise<void> {
  const { outcomes, tally } = f;
  await f.deps.store.recordAttempts(f.s.id, outcomes.slice(first, end));
  for (let i = first; i < end; i++) {
    const o = outcomes[i]!;
    count(tally!, o);
    if (o.esito === 'ok' && hasAttemptRow(o)) delete outcomes[i];
  }
}

/**
 * What the tickets said beyond the order (intents, comments, artwork), kept with the orders they made. Saved after
 * the batch is registered and before the outcome is recorded: a crash in between judges the submission again,
 * which answers "created" for the same orders and saves them then (an order keeps the first details it got).
 */
async function keepTickets(f: FileState, items: { index: number; item: RegisterItem }[], results: { status: string; id_ordine: string }[]): Promise<void> {
  if (!f.connector) return;
  const rows: { orderId: string; details: string }[] = [];
  results.forEach((r, k) => {
    const notes = f.connector?.[items[k]!.index]?.notes;
    if (notes && r.status !== 'conflict') rows.push({ orderId: r.id_ordine, details: serialiseDetails(notes.details) });
  });
  if (rows.length > 0) await f.deps.store.saveOrderTickets(rows);
}

export async function judge(deps: JudgeDeps, s: StoredSubmission): Promise<Judgement> {
  // A channel that acknowledges receipt (SFTP CLOSE, FTP 226, SMTP 250) sends it in the same turn of the event
  // loop that handed the submission over: this lets it out before a large file's judging begins. REST and SOAP
  // (one order, answered with its outcome) have nothing to let out first.
  if (!s.singleOrder) await yieldToEventLoop();
  let source: OrderSource;
  let site: string | undefined;
  let connector: ConnectorOrder[] | undefined;
  try {
    ({ source, site, connector } = await decode(deps.store, s, deps.timeZone));
  } catch (e) {
    if (isIntakeError(e)) return { outcome: fileError(s.id, e) };
    throw e;
  }
  const now = deps.now();
  const f: FileState = {
    deps, s, principal: principalOf(s), site, now, year: yearIn(now, deps.timeZone),
    outcomes: new Array(source.count), seen: new SeenOrders(source.count), repeats: [], ...(connector ? { connector } : {}),
    ...(source.count > JUDGE_BATCH_ORDERS ? { tally: { accepted: 0, duplicate: 0, rejected: 0 } } : {}),
  };
  let batch: unknown[] = [];
  let lines = 0;
  let first = 0;
  for (const candidate of source.candidates()) {
    batch.push(candidate);
    lines += linesOf(candidate);
    if (batch.length < JUDGE_BATCH_ORDERS && lines < JUDGE_BATCH_LINES) continue;
    await judgeBatch(f, first, batch);
    first += batch.length;
    batch = [];
    lines = 0;
    await yieldToEventLoop();
  }
  if (batch.length > 0) await judgeBatch(f, first, batch);

  const { outcomes, tally } = f;
  if (tally) {
    const esito = tally.rejected === 0 && outcomes.length > 0 ? 'ok' : 'errore';
    return { outcome: { submissionId: s.id, esito, orders: outcomes }, tally };
  }
  const esito = outcomes.length > 0 && outcomes.every((o) => o.esito === 'ok') ? 'ok' : 'errore';
  return { outcome: { submissionId: s.id, esito, orders: outcomes } };
}
