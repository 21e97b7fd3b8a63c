/**
 * The vocabulary of the virtual tree shared by tree.ts and the protocol adapters: entries, uploads, refusals (with
 * their Italian texts), and where a path points.
 */
import type { Intake } from '../../intake/intake.ts';
import type { Principal } from '../../domain/types.ts';
import type { Logger } from '../../log.ts';
import type { Metrics } from '../../metrics/metrics.ts';
import type { FilesChannelStore } from '../../domain/store/ports.ts';
import type { PeppolId } from '../../domain/store/store.ts';
import { LIMITS } from './limits.ts';
import { TooLargeError, type Spool } from './spool.ts';
import type { MemoryBudget } from '../memory-budget.ts';

export type TreeErrorKind = 'not_found' | 'denied' | 'failure' | 'exists';

/** A refusal the client is shown: kind decides the protocol status, message is the text (Italian). */
export class TreeError extends Error {
  constructor(readonly kind: TreeErrorKind, message: string) {
    super(message);
    this.name = 'TreeError';
  }
}

export const INBOX = 'ordini';
export const SUBFOLDERS = ['elaborati', 'scartati', 'esiti'] as const;
export type Subfolder = (typeof SUBFOLDERS)[number];

export const MESSAGES = {
  notFound: 'file o cartella inesistente',
  writeElsewhere: 'qui non si possono scrivere file: caricare gli ordini nella cartella /ordini/',
  keepStored: 'i file ricevuti non si possono cancellare né rinominare: restano come ricevuta',
  noFolders: 'non si possono creare né cancellare cartelle',
  reserved: 'è il nome di una cartella: scegliere un altro nome',
  noResume: 'un file in /ordini viene registrato alla fine del caricamento e non si può riprendere: caricarlo di nuovo da capo, oppure usare un nome temporaneo (.part, .filepart) e rinominarlo alla fine',
  busy: 'il file è in caricamento in un\'altra sessione',
  tooManyFiles: `troppi file in questa sessione (massimo ${LIMITS.filesPerSession}): riconnettersi`,
  tooManyTemp: `troppi file temporanei (massimo ${LIMITS.tempFilesPerCustomer}): rinominarli o cancellarli`,
  notStored: 'il file non è stato registrato per un errore interno: caricarlo di nuovo',
  memoryBusy: 'servizio momentaneamente occupato da altri file grandi: il file non è stato registrato, caricarlo di nuovo tra qualche minuto',
  isDir: 'è una cartella',
} as const;

export interface Entry {
  name: string;
  type: 'dir' | 'file';
  /** Exact, in listings too: stored files from the store, outcome files rendered (listing-sizes.ts). */
  size: number;
  mtime: Date;
  writable: boolean;
}

/** Sizes of rendered outcome files (listing-sizes.ts), so that a listing does not render the same file again. */
export class SizeCache {
  readonly #sizes = new Map<string, number>();
  /** 10,000 numbers: well under 1 MB; when full it starts over rather than tracking age. */
  static readonly MAX = 10_000;

  get(key: string): number | undefined {
    return this.#sizes.get(key);
  }

  set(key: string, size: number): void {
    if (this.#sizes.size >= SizeCache.MAX) this.#sizes.clear();
    this.#sizes.set(key, size);
  }
}

export interface FilesDeps {
  store: FilesChannelStore;
  intake: Intake;
  log: Logger;
  timeZone: string;
  maxFileBytes: number;
  spool: Spool;
  sizes: SizeCache;
  metrics?: Metrics;
  /** Memory shared by the uploads being stored and judged (src/channels/memory-budget.ts); unset: unbounded. */
  budget?: MemoryBudget;
  /** Our Peppol identifier (INTAKE_PEPPOL_ID): the seller of the Order Responses in /ordini/esiti. */
  peppolId?: PeppolId;
}

export interface SessionInfo {
  principal: Principal;
  channel: 'ftp' | 'sftp';
  remote: string;
  user: string;
}

/** An upload under way. Exactly one of finish() or abort() must end it. */
export interface Upload {
  readonly name: string;
  readonly temporary: boolean;
  /** Bytes received so far (the end of the furthest write). */
  readonly bytes: number;
  write(data: Uint8Array, offset?: number): Promise<void>;
  /** The upload is complete: a final name is committed (resolves once durable); a temporary one is kept. */
  finish(): Promise<void>;
  /** The upload was cut: a final name is discarded unprocessed; a temporary one is kept for resuming. */
  abort(reason: string): Promise<void>;
}

/**
 * An upload the tree has agreed to (checks passed, name claimed) and the writing side must now open and write: the
 * tree decides, the writing side (upload-writer.ts) only writes where it is told, in whichever thread holds the
 * connection. Plain data, so that it can travel to the SFTP thread.
 */
export interface UploadPlan {
  name: string;
  temporary: boolean;
  /** The spool file the bytes go into. */
  file: string;
  /** 'new' creates or empties the file, 'keep' opens it as it is (resume), 'exclusive' fails if it exists. */
  mode: 'new' | 'keep' | 'exclusive';
  /** Resume point (temporary files only). */
  start?: number;
  /** Bytes allowed (config.maxFileBytes). */
  max: number;
  /** A temporary file's name record (spool.ts), written in `dir` once its data file is open. */
  nameRecord?: { dir: string; file: string };
  /**
   * A final name's: report the in-order bytes on disk each time they grew by this much (FileTree.uploadProgress),
   * so that the tree copies them into the store while the upload goes on (upload-stager.ts).
   */
  stageBytes?: number;
}

/** How the writing side ended an upload it was given a plan for (see FileTree.endUpload). */
export type UploadEnd =
  /** Every byte written and the file closed: a final name is committed now. */
  | { kind: 'done'; size: number; sha256?: string }
  /** Cut by the client or the connection: a final name's file is already deleted, a temporary one kept. */
  | { kind: 'aborted'; size: number; reason: string }
  /** Closing the file failed (a disk write failed): nothing is committed; the writing side reports the error. */
  | { kind: 'failed' }
  /** The file could not be opened; `message` is why (a resume beyond the file's end says so in Italian). */
  | { kind: 'unopened'; message: string };

export interface UploadOptions {
  /** Empty the file first (SFTP TRUNC, FTP STOR without REST). */
  truncate: boolean;
  /** Fail if the file exists (SFTP EXCL). */
  exclusive?: boolean;
  /** Resume point (FTP REST): only temporary files can be resumed. */
  start?: number;
  /** Continue after the existing bytes (FTP APPE): only temporary files can be resumed. */
  append?: boolean;
}

export type Located =
  | { at: 'root' }
  | { at: 'dir'; folder: typeof INBOX | Subfolder }
  | { at: 'inbox'; name: string }
  | { at: 'stored'; folder: Subfolder; name: string }
  | { at: 'outside' };

export function locate(segments: readonly string[]): Located {
  const [top, second, third, ...more] = segments;
  if (top === undefined) return { at: 'root' };
  if (top !== INBOX || more.length > 0) return { at: 'outside' };
  if (second === undefined) return { at: 'dir', folder: INBOX };
  const sub = SUBFOLDERS.find((f) => f === second);
  if (third === undefined) return sub ? { at: 'dir', folder: sub } : { at: 'inbox', name: second };
  return sub ? { at: 'stored', folder: sub, name: third } : { at: 'outside' };
}

/** Write failures the client must read: the size limit by name, anything else as a generic failure. */
export function writeError(err: unknown): never {
  if (err instanceof TreeError) throw err;
  if (err instanceof TooLargeError) throw new TreeError('failure', err.message);
  throw new TreeError('failure', 'scrittura del file non riuscita');
}

export function segmentsOf(path: string): string[] {
  return path.split('/').filter((s) => s !== '');
}
