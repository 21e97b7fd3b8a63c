/**
 * Core types of the intake.
 *
 * Glossary (the domain's words; Italian ones are the spec's field names and stay as they are):
 *
 * - customer (cliente): a company that sends orders; identified by its `codice_cliente` (e.g. C001).
 * - credential: something that proves a sender is a customer: an API key (REST, SOAP), a user name and
 *   password (FTP/SFTP), a mailbox address (e-mail), a connector key (`service-x-key`). Each belongs to
 *   exactly one customer; secrets are stored only as hashes.
 * - channel: the way a submission arrived (rest, soap, email, imap, ftp, sftp, connector, and the web console and portal).
 * - submission: one thing a channel received (a request body, an uploaded file, an e-mail attachment) with
 *   its raw bytes. It is committed to the store before the channel acknowledges it, and kept forever with
 *   its outcome. A submission holds one or more orders.
 * - order (ordine): what a customer wants printed, identified across all channels by
 *   `(codice_cliente, riferimento_ordine)`. Once registered it has an `id_ordine` (opaque, UUIDv7) and a
 *   `numero_ordine` (`<year>-<6-digit sequence>`).
 * - line (riga): one article, quantity and unit of an order.
 * - decode: turn raw bytes (JSON, XML, CSV, …) into order candidates, plain objects not yet trusted.
 * - stage A: structural validation (types, required fields, dates, at least one line). Errors are a list of
 *   English strings worded like class-validator (error shape A of the spec).
 * - stage B: business validation against the store (known article, known unit, customer, duplicates).
 *   Errors are `{campo, messaggio}` pairs with Italian text (error shape B of the spec).
 * - register: store a valid order once, giving it its id and number; idempotent on its identity.
 * - outcome (esito): what became of a submission: one entry per order, accepted or with its errors.
 *   Channels render it in their own protocol.
 * - action (azione): what an order of a submission asks: `nuovo` (register it, the default), `modifica` (replace the
 *   registered order's content) or `annulla` (cancel it). See src/intake/lifecycle.ts.
 * - version (versione): the content an order has at one time; registration is version 1, each change applied the
 *   next. `id_ordine` and `numero_ordine` never change.
 * - request (richiesta): a change or cancellation that production must decide, because it has started work
 *   (`in_lavorazione`); `in_attesa` until production accepts or refuses it.
 */
import type { ErrorCode } from './errors.ts';

// console: an order an operator corrected and registered on the customer's behalf; portal: the customers' web page.
export const CHANNELS = ['rest', 'soap', 'email', 'imap', 'ftp', 'sftp', 'connector', 'console', 'portal'] as const;
export type Channel = (typeof CHANNELS)[number];

/** The authenticated sender, as a channel resolved it from a credential. */
export interface Principal {
  customerId: string;
  /** The customer's `codice_cliente`; orders naming another code are refused. */
  customerCode: string;
  /** For connector keys: the production sites the key may deliver to. */
  sites?: readonly string[];
  /** For connector keys: the connector's id (its mapping and lookup tables hang off it). */
  connectorId?: string;
}

/** What a channel hands to the core: who sent what, and how. */
export interface Submission {
  principal: Principal;
  channel: Channel;
  /** File name as the sender gave it (upload, attachment); undefined for bodies of API calls. */
  fileName?: string;
  /** Media type as the sender declared it, without parameters (e.g. `application/json`). */
  mediaType?: string;
  /** The declared charset parameter, if any (e.g. `windows-1252`). */
  charset?: string;
  raw: Buffer;
  /**
   * The raw bytes in a local file instead of `raw` (left empty): an FTP/SFTP upload in the spool, fsynced, that
   * nobody changes or deletes until the submission is judged. The store copies it in pieces and judging reads it in
   * pieces, so a large upload is never held whole in memory (issue 19 item 11).
   */
  rawFile?: RawFile;
  /** Channel-specific facts worth keeping (remote address, Message-ID, SFTP path, site, …). */
  meta?: Record<string, string>;
  /** REST and SOAP take exactly one order per call; file channels take any number. */
  singleOrder?: boolean;
  /** Production site the order belongs to (connectors). */
  site?: string;
}

/** Raw bytes of a submission kept in a local file (see Submission.rawFile). */
export interface RawFile {
  path: string;
  size: number;
  /** Hex SHA-256 of the file, computed by the channel while it read it. */
  sha256: string;
  /**
   * Bytes [0, bytes) already written into the store while the upload streamed (Store.stageUploadPieces, under the
   * upload's id, which must then be the submission's id): saving the submission adopts them and writes only the
   * rest of the file. Absent: the store copies the whole file.
   */
  staged?: { id: string; bytes: number };
}

export type SubmissionState = 'received' | 'processed' | 'failed';

/** A submission as the store keeps it. */
export interface StoredSubmission {
  id: string;
  customerId: string;
  customerCode: string;
  channel: Channel;
  fileName?: string;
  mediaType?: string;
  charset?: string;
  raw: Buffer;
  /**
   * Set on the submission as just saved from Submission.rawFile (`raw` then empty; never read back from the store):
   * judging reads the bytes from that local file. A submission read from the store has its bytes in `raw`.
   */
  rawFile?: RawFile;
  meta: Record<string, string>;
  singleOrder: boolean;
  site?: string;
  sites?: readonly string[];
  connectorId?: string;
  /** For single-order submissions: the id the order will get if it is new (so async callers can poll it). */
  reservedOrderId?: string;
  sha256: string;
  receivedAt: string;
  state: SubmissionState;
  outcome?: Outcome;
  processedAt?: string;
  attempts: number;
  /**
   * Times the sweeper took it up again after it was left unprocessed (a crash, an internal error); past
   * INTAKE_LIMITS.submissionRetries it is given up as failed (see intake.ts).
   */
  retries?: number;
}

/** An order line after stage A: types are right. */
export interface OrderLine {
  codice_articolo: string;
  quantita: number;
  unita_misura: string;
}

/** Longest note an order may carry (in characters): a few lines for production, not a document. */
export const MAX_NOTE_CHARS = 1000;

/** An order after stage A: types are right, dates are real dates. */
export interface Order {
  codice_cliente: string;
  riferimento_ordine: string;
  data_ordine: string;
  data_consegna?: string;
  /** The customer's note for the order: free text, line breaks and tabs kept, no other control character. */
  note?: string;
  righe: OrderLine[];
  /** What the sender asks of this order; absent: `nuovo`. Never part of the content hash. */
  azione?: ChangeAction;
  /** The sender's reason for a change or cancellation. */
  motivo?: string;
}

/** Order actions (field `azione`): `nuovo` registers; these two act on an order registered already. */
export const ORDER_ACTIONS = ['nuovo', 'modifica', 'annulla'] as const;
export type OrderAction = (typeof ORDER_ACTIONS)[number];
export type ChangeAction = Exclude<OrderAction, 'nuovo'>;

/** Kinds and states of a request production decides (field names of the spec's lifecycle). */
export type RequestKind = 'modifica' | 'annullamento';
export type RequestState = 'in_attesa' | 'accettata' | 'rifiutata';

/** One business error (shape B). */
export interface FieldError {
  campo: string;
  messaggio: string;
  /** The cell the field came from, for an order read from a spreadsheet (`ordini!E7`). */
  cella?: string;
}

/** Where a spreadsheet order's values are: see OrderOutcome.foglio_file. */
export interface SheetPlaces {
  foglio: string;
  /** Row of each line (from 1, as the sheet shows it), by line position. */
  righe: number[];
  /** By field name: the column's letters and its header as the sheet writes it. */
  colonne: Record<string, { lettera: string; nome: string }>;
}

/** What became of one order of a submission. */
export interface OrderOutcome {
  /** Position of the order in the file, from 0. */
  index: number;
  codice_cliente?: string;
  riferimento_ordine?: string;
  esito: 'ok' | 'errore';
  /** True when the same order was already registered with identical content. */
  duplicate?: boolean;
  id_ordine?: string;
  numero_ordine?: string;
  /** Production site (connectors). */
  sito_produzione?: string;
  /** For a change or cancellation (lifecycle): what was asked, and what became of it. */
  azione?: ChangeAction;
  /** The order's version after a change applied (or the current one, when the change was already there). */
  versione?: number;
  /** `annullato` once a cancellation took effect. */
  stato?: 'annullato';
  /** A request production must decide (the order is in production). */
  id_richiesta?: string;
  stato_richiesta?: RequestState;
  /** For errors: the catalog code that decides the status (VALIDATION, BUSINESS, CONFLICT, FORBIDDEN_CUSTOMER). */
  code?: ErrorCode;
  /** Stage A messages (shape A). */
  message?: string[];
  /** Stage B errors (shape B). */
  errori?: FieldError[];
  /**
   * Refused orders of a CSV file: the file row (from 1, the header counted) of each line, by line position, so that
   * replies and outcome files can say where to look. Never part of a REST or SOAP body.
   */
  righe_file?: number[];
  /**
   * Refused orders of a spreadsheet (.xlsx): the sheet, the row of each line and the column of each field, so that
   * errors name the cell (`cella`: `ordini!E7`; "foglio ordini, riga 7, colonna Quantità"). Not part of a SOAP body.
   */
  foglio_file?: SheetPlaces;
  /**
   * Internal, never rendered: the customer (id) this order's attempt is filed under when it is not the
   * submission's, i.e. for connectors bound to several customers (see unattributedOwner in src/domain/store/connectors.ts).
   */
  customerId?: string;
}

/** What became of a submission. `esito` is ok only when every order is ok. */
export interface Outcome {
  submissionId: string;
  esito: 'ok' | 'errore';
  /** Set when the file as a whole could not be read (no order could even be found). */
  fileError?: { code: ErrorCode; message: string[] };
  orders: OrderOutcome[];
}

/** A registered order as shown to its customer. */
export interface RegisteredOrder extends Order {
  id_ordine: string;
  numero_ordine: string;
  customerId: string;
  submissionId: string;
  channel: Channel;
  sito_produzione?: string;
  registeredAt: string;
  /** What production last reported (undefined: nothing yet); see src/handoff/production.ts. */
  productionState?: ProductionState;
  /** Every production report, oldest first (present when productionState is). */
  productionHistory?: ProductionStep[];
  /** The current version (1 until a change is applied). */
  versione: number;
  /** When and by which channel the current version was made (absent for version 1: registeredAt, channel). */
  versionAt?: string;
  versionChannel?: Channel;
}

/** Production states an integration (ERP/MIS) may report back; the allowed moves are in src/handoff/production.ts. */
export const PRODUCTION_STATES = ['in_lavorazione', 'spedito', 'consegnato', 'annullato'] as const;
export type ProductionState = (typeof PRODUCTION_STATES)[number];

/** One production report as the customer sees it. */
export interface ProductionStep {
  stato: ProductionState;
  nota?: string;
  /** When it was recorded (ISO 8601, UTC). */
  aggiornato_il: string;
}
