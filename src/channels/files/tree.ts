/**
 * The customer's virtual tree, one for FTP and SFTP alike (the protocol adapters only translate). It is a view over
 * the store, not folders on disk, so every instance sharing the database shows the same files and nothing stored can
 * be lost or changed through a local disk:
 *
 *   /                      read-only; holds only `ordini`
 *   /ordini/               uploads go here; lists the files still being processed and temporary uploads
 *   /ordini/elaborati/     processed files whose orders were all accepted (download = the bytes as received)
 *   /ordini/scartati/      processed files with at least one error
 *   /ordini/esiti/         `<name>.esito.json` and `<name>.esito.txt` for every processed file, and `<name>.esito.xml`
 *                          (the Peppol Order Response) for a UBL ordering document
 *
 * Stored files are never deleted or renamed (every receipt is kept); only temporary uploads can be.
 * Every path a client sends has already been through resolveClientPath (paths.ts).
 */
import { link, readFile, rm, stat } from 'node:fs/promises';
import type { StoredSubmission } from '../../domain/types.ts';
import type { SubmissionSummary } from '../../domain/store/store.ts';
import { childLogger } from '../../log.ts';
import { LIMITS } from './limits.ts';
import { displayNames, isTemporaryName } from './names.ts';
import { newNameProblem } from './paths.ts';
import { OUTCOME_JSON_SUFFIX, OUTCOME_TEXT_SUFFIX } from '../../render/outcome-file.ts';
import { orderResponseBytes, outcomeFileBytes, outcomeSizeKey, outcomeSizes, type OutcomeFileRef } from './listing-sizes.ts';

/** The Peppol Order Response of a UBL ordering document, beside its other outcome files. */
const ORDER_RESPONSE_SUFFIX = '.esito.xml';
import { hashFile, TooLargeError } from './spool.ts';
import { openUpload } from './upload-writer.ts';
import { STAGE_REPORT_BYTES, UploadStager } from './upload-stager.ts';
import { uuidv7 } from '../../domain/uuid7.ts';
import { uploadMemoryCost } from '../upload-memory.ts';
import {
  INBOX, locate, MESSAGES, segmentsOf, SUBFOLDERS, TreeError,
  type Entry, type FilesDeps, type Located, type SessionInfo, type Upload, type UploadEnd, type UploadOptions, type UploadPlan,
} from './tree-model.ts';


interface Snapshot {
  inbox: Map<string, SubmissionSummary>;
  elaborati: Map<string, SubmissionSummary>;
  scartati: Map<string, SubmissionSummary>;
  esiti: Map<string, OutcomeFileRef>;
}

const EMPTY = Buffer.alloc(0);

/** Folders are views: their time is the time they are looked at. */
const dir = (name: string, writable = false): Entry => ({ name, type: 'dir', size: 0, mtime: new Date(), writable });

export interface FileTree {
  stat(path: string): Promise<Entry>;
  list(path: string): Promise<Entry[]>;
  read(path: string): Promise<Buffer>;
  /** Begin and write an upload here, in this thread (FTP): beginUpload, then upload-writer.ts's openUpload. */
  upload(path: string, opts: UploadOptions): Promise<Upload>;
  /** Check an upload and claim its name; the writing side opens the planned file and must call endUpload once. */
  beginUpload(path: string, opts: UploadOptions): Promise<{ id: number; plan: UploadPlan }>;
  /** How the upload ended: a final name that is done is committed (resolves once durable); throws the refusal. */
  endUpload(id: number, end: UploadEnd): Promise<void>;
  /** The writing side has bytes [0, bytes) of an upload's file on disk, in order: copied into the store meanwhile. */
  uploadProgress(id: number, bytes: number): Promise<void>;
  /** End every upload begun and not ended, as cut (the writing side went away): claims released, files deleted. */
  abandonUploads(reason: string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  remove(path: string): Promise<void>;
  mkdir(): Promise<never>;
  rmdir(): Promise<never>;
  /** Attribute changes (times, modes): accepted and ignored for /ordini uploads, refused elsewhere. */
  setAttributes(path: string): Promise<void>;
}

/**
 * `<name>.correzione-<n>.esito.json|txt` for each order desk's correction that registered order n of a listed file:
 * the new outcome file that tells the customer, on the channel the file came by, that the order was registered. A
 * second correction of the same order (answered as a duplicate) adds no file: the first one, the oldest, has the name.
 */
function correctionFiles(snap: Snapshot, names: Map<string, SubmissionSummary>, listed: readonly SubmissionSummary[]): void {
  const nameOf = new Map<string, string>();
  for (const [name, s] of names) nameOf.set(s.id, name);
  for (let i = listed.length - 1; i >= 0; i--) {
    const c = listed[i]!;
    const of = c.meta.corregge;
    const base = c.channel === 'console' && c.state === 'processed' && c.esito === 'ok' && of !== undefined ? nameOf.get(of) : undefined;
    if (base === undefined) continue;
    const stem = `${base}.correzione-${(Number(c.meta.ordine) || 0) + 1}`;
    if (snap.esiti.has(stem + OUTCOME_TEXT_SUFFIX)) continue;
    snap.esiti.set(stem + OUTCOME_JSON_SUFFIX, { s: c, kind: 'json', base, correction: true });
    snap.esiti.set(stem + OUTCOME_TEXT_SUFFIX, { s: c, kind: 'txt', base, correction: true });
  }
}

export function createTree(deps: FilesDeps, session: SessionInfo): FileTree {
  const { store, intake, spool, sizes, timeZone } = deps;
  const customerId = session.principal.customerId;
  const log = childLogger(deps.log, { channel: session.channel, customer: session.principal.customerCode, remote: session.remote });
  let uploads = 0;

  async function snapshot(): Promise<Snapshot> {
    // Filtered in the query, before the limit: the customer's REST or e-mail orders are not files of this tree and
    // must not push its files out of the window.
    // The order desk's corrections (channel console) come in the same window: their outcome files tell the customer
    // that an order of a refused file was registered after all (correctionFiles).
    const listed = (await store.listSubmissions({ customerId, channels: ['console', 'ftp', 'sftp'], limit: LIMITS.listedPerFolder }))
      .filter((s) => s.customerId === customerId);
    const all = listed.filter((s) => s.channel === 'ftp' || s.channel === 'sftp');
    const snap: Snapshot = { inbox: new Map(), elaborati: new Map(), scartati: new Map(), esiti: new Map() };
    const names = displayNames(all, timeZone);
    for (const [name, s] of names) {
      // 'failed' (given up after repeated processing failures) has its outcome too, and is shown like any other.
      if (s.state === 'received') {
        snap.inbox.set(name, s);
        continue;
      }
      (s.esito === 'ok' ? snap.elaborati : snap.scartati).set(name, s);
      snap.esiti.set(name + OUTCOME_JSON_SUFFIX, { s, kind: 'json', base: name });
      snap.esiti.set(name + OUTCOME_TEXT_SUFFIX, { s, kind: 'txt', base: name });
      // A UBL ordering document's Peppol Order Response; left out of listings for any other XML (no size).
      if (/\.xml$/i.test(name)) snap.esiti.set(name + ORDER_RESPONSE_SUFFIX, { s, kind: 'xml', base: name });
    }
    correctionFiles(snap, names, listed);
    return snap;
  }

  async function load(id: string): Promise<StoredSubmission> {
    const s = await store.getSubmission(id);
    // The listing came from this customer's rows; checked again so that no path can ever reach another's bytes.
    if (!s || s.customerId !== customerId) throw new TreeError('not_found', MESSAGES.notFound);
    return s;
  }

  async function renderOutcome(id: string, base: string, kind: OutcomeFileRef['kind']): Promise<Buffer> {
    const s = await load(id);
    if (!s.outcome) throw new TreeError('not_found', MESSAGES.notFound);
    if (kind === 'xml') {
      const bytes = await orderResponseBytes(store, s, s.outcome, { timeZone, ...(deps.peppolId ? { seller: deps.peppolId } : {}) });
      if (!bytes) throw new TreeError('not_found', MESSAGES.notFound);
      return bytes;
    }
    const bytes = await outcomeFileBytes(store, customerId, { kind, base, ...(s.channel === 'console' ? { correction: true } : {}) }, s, s.outcome, timeZone);
    sizes.set(outcomeSizeKey(s.id, kind, s.processedAt, base), bytes.length);
    return bytes;
  }

  function storedEntry(name: string, s: SubmissionSummary): Entry {
    return { name, type: 'file', size: s.size, mtime: new Date(s.receivedAt), writable: false };
  }

  function outcomeEntry(name: string, o: OutcomeFileRef, size: number): Entry {
    return { name, type: 'file', size, mtime: new Date(o.s.processedAt ?? o.s.receivedAt), writable: false };
  }

  /** The stored submission behind a located file, and how to produce its bytes. */
  async function find(loc: Located): Promise<{ entry: Entry; bytes: () => Promise<Buffer> } | undefined> {
    if (loc.at === 'inbox') {
      if (isTemporaryName(loc.name)) {
        const t = await spool.statTemp(customerId, loc.name);
        if (!t) return undefined;
        return {
          entry: { name: t.name, type: 'file', size: t.size, mtime: t.mtime, writable: true },
          bytes: () => readFile(spool.tempDataFile(customerId, loc.name)),
        };
      }
      const s = (await snapshot()).inbox.get(loc.name);
      return s && { entry: storedEntry(loc.name, s), bytes: async () => (await load(s.id)).raw };
    }
    if (loc.at !== 'stored') return undefined;
    const snap = await snapshot();
    if (loc.folder === 'esiti') {
      const o = snap.esiti.get(loc.name);
      if (!o) return undefined;
      const size = (await outcomeSizes(deps, customerId, [o])).get(o);
      if (size === undefined) return undefined;
      return { entry: outcomeEntry(loc.name, o, size), bytes: () => renderOutcome(o.s.id, o.base, o.kind) };
    }
    const s = snap[loc.folder].get(loc.name);
    return s && { entry: storedEntry(loc.name, s), bytes: async () => (await load(s.id)).raw };
  }

  async function exists(loc: Located): Promise<boolean> {
    return loc.at === 'root' || loc.at === 'dir' || (await find(loc)) !== undefined;
  }

  /**
   * Store and judge the upload in `file` (a file of spool/uploads/, fsynced), which this takes over: it is read in
   * pieces by the store and by judging, never held whole (issue 19 item 11), and deleted once the file is judged
   * or could not be stored. A crash leaves it in uploads/, emptied at start; the store has the bytes by then.
   */
  async function commit(file: string, name: string, clientPath: string, known?: { sha256: string; size: number },
    staged?: { id: string; bytes: number }): Promise<StoredSubmission> {
    let release: (() => void) | undefined;
    let owned = true;
    const discard = () => {
      // Not awaited: the acknowledgement must not wait for I/O that judging a large file could hold up.
      rm(file, { force: true }).catch((err: unknown) => log.warn({ err, file: name }, 'could not delete a spool file'));
    };
    try {
      const size = (await stat(file)).size;
      if (size > deps.maxFileBytes) throw new TreeError('failure', new TooLargeError(deps.maxFileBytes).message);
      if (deps.budget) {
        // Stored and judged: wait for room in the budget all customers share (memory-budget.ts).
        const cost = await uploadMemoryCost(file, name, size);
        release = await deps.budget.acquire(cost, LIMITS.budgetWaitMs);
        if (!release) {
          log.warn({ file: name, bytes: size, cost, inUse: deps.budget.inUse(), waiting: deps.budget.waiting() }, 'upload refused: memory budget full');
          throw new TreeError('failure', MESSAGES.memoryBusy);
        }
      }
      // Hashed while it arrived when it could be (spool.ts); else read back.
      const sha256 = known?.size === size ? known.sha256 : await hashFile(file);
      // Its first bytes were copied into the store as they arrived (upload-stager.ts): the save adopts them. Only for
      // a file written in order throughout (the hash says so), or a later write could have changed a copied piece.
      const adopt = staged && staged.bytes > 0 && known?.size === size ? staged : undefined;
      if (staged && staged.bytes > 0 && !adopt) await dropStaged(staged.id);
      // Looked up before receiving, or it would find itself.
      const earlier = await store.findSubmissionBySha(customerId, sha256);
      const meta: Record<string, string> = { remote: session.remote, path: clientPath, user: session.user };
      if (earlier) {
        meta.gia_ricevuto_il = earlier.receivedAt;
        meta.gia_ricevuto_id = earlier.id;
      }
      const held = release;
      release = undefined;
      owned = false;
      // The budget is given back, and the file deleted, once the file is judged (or its save failed), not when it
      // is acknowledged: judging reads the file.
      const s = await intake.submitInBackground({
        principal: session.principal, channel: session.channel, fileName: name, mediaType: undefined, raw: EMPTY,
        rawFile: { path: file, size, sha256, ...(adopt ? { staged: adopt } : {}) }, meta, singleOrder: false,
      }, {
        onSettled: () => {
          held?.();
          discard();
        },
      });
      log.info({ submission: s.id, file: name, bytes: size, sameAs: earlier?.id }, 'file received');
      return s;
    } catch (err) {
      if (err instanceof TreeError) throw err;
      log.error({ err, file: name }, 'could not store an uploaded file');
      throw new TreeError('failure', MESSAGES.notStored);
    } finally {
      release?.();
      if (owned) discard();
    }
  }

  function inboxTarget(path: string): string {
    const loc = locate(segmentsOf(path));
    if (loc.at === 'dir' && loc.folder !== INBOX) throw new TreeError('denied', `"${loc.folder}" ${MESSAGES.reserved}`);
    if (loc.at !== 'inbox') throw new TreeError('denied', MESSAGES.writeElsewhere);
    // Paths may name longer files (the names derived from this one); a new file's own name is held to the limit.
    const why = newNameProblem(loc.name);
    if (why) throw new TreeError('denied', why);
    return loc.name;
  }

  /**
   * Uploads begun and not yet ended, by id: what a writing side that went away leaves to clean up. A final name's
   * has its stager, which copies it into the store as it arrives.
   */
  const open = new Map<number, { plan: UploadPlan; path: string; stager?: UploadStager }>();
  let nextUpload = 1;

  async function planTemp(name: string, opts: UploadOptions): Promise<UploadPlan> {
    const existing = await spool.statTemp(customerId, name);
    if (!existing && (await spool.listTemp(customerId)).length >= LIMITS.tempFilesPerCustomer) {
      throw new TreeError('failure', MESSAGES.tooManyTemp);
    }
    if (existing && opts.exclusive) throw new TreeError('exists', 'il file esiste già');
    if (!spool.claim(customerId, name)) throw new TreeError('failure', MESSAGES.busy);
    const mode = opts.exclusive ? 'exclusive' : opts.truncate && !opts.append && opts.start === undefined ? 'new' : 'keep';
    const files = spool.tempFiles(customerId, name);
    return { name, temporary: true, file: files.data, mode, start: opts.start, max: deps.maxFileBytes, nameRecord: files.nameRecord };
  }

  function planFinal(name: string, opts: UploadOptions): UploadPlan {
    if (opts.append || (opts.start !== undefined && opts.start > 0)) throw new TreeError('denied', MESSAGES.noResume);
    return { name, temporary: false, file: spool.newUploadFile(), mode: 'exclusive', max: deps.maxFileBytes, stageBytes: STAGE_REPORT_BYTES };
  }

  async function beginUpload(path: string, opts: UploadOptions): Promise<{ id: number; plan: UploadPlan }> {
    const name = inboxTarget(path);
    if (uploads >= LIMITS.filesPerSession) throw new TreeError('failure', MESSAGES.tooManyFiles);
    uploads++;
    const plan = isTemporaryName(name) ? await planTemp(name, opts) : planFinal(name, opts);
    const id = nextUpload++;
    // The upload's id in the store is the id of the submission that will adopt its pieces.
    const stager = plan.temporary ? undefined : new UploadStager(store, uuidv7(), plan.file, log);
    open.set(id, { plan, path, stager });
    return { id, plan };
  }

  /** Pieces copied while an upload arrived that no submission will adopt: deleted now (else the orphan sweep's). */
  async function dropStaged(uploadId: string): Promise<void> {
    await store.discardStagedUpload(uploadId)
      .catch((err: unknown) => log.warn({ err, upload: uploadId }, 'could not delete the pieces of an upload that ended unstored'));
  }

  /** Stop copying an upload that ends unstored (the copy under way is waited for), and drop what was copied. */
  async function dropStager(stager: UploadStager | undefined): Promise<void> {
    if (stager && (await stager.stop()) > 0) await dropStaged(stager.uploadId);
  }

  function uploadProgress(id: number, bytes: number): Promise<void> {
    open.get(id)?.stager?.advance(bytes);
    return Promise.resolve();
  }

  async function endUpload(id: number, end: UploadEnd): Promise<void> {
    const u = open.get(id);
    if (!u) throw new TreeError('failure', 'caricamento già concluso');
    open.delete(id);
    const { plan } = u;
    if (plan.temporary) {
      spool.release(customerId, plan.name);
      if (end.kind === 'aborted') log.info({ file: plan.name, bytes: end.size, reason: end.reason }, 'temporary upload interrupted; kept for resuming');
      if (end.kind === 'unopened') throw new TreeError('failure', /ripresa/.test(end.message) ? end.message : 'impossibile aprire il file');
      return;
    }
    if (end.kind !== 'done') await dropStager(u.stager);
    if (end.kind === 'aborted') log.warn({ file: plan.name, bytes: end.size, reason: end.reason }, 'upload interrupted: discarded, not processed');
    if (end.kind === 'unopened') {
      log.error({ err: new Error(end.message) }, 'cannot open a spool file');
      throw new TreeError('failure', MESSAGES.notStored);
    }
    if (end.kind !== 'done') return;
    // Waits for the piece being copied, if any: the save adopts what is durable and writes the rest.
    const staged = u.stager ? { id: u.stager.uploadId, bytes: await u.stager.stop() } : undefined;
    try {
      // commit owns the file from here, and deletes it once it is judged.
      await commit(plan.file, plan.name, u.path, end.sha256 === undefined ? undefined : { sha256: end.sha256, size: end.size }, staged);
    } catch (err) {
      // Not stored: its pieces go. (Pieces a saved submission adopted would be left alone: discarding only deletes
      // those of an upload still in upload_staging.)
      if (staged && staged.bytes > 0) await dropStaged(staged.id);
      throw err;
    }
  }

  return {
    async stat(path) {
      const loc = locate(segmentsOf(path));
      if (loc.at === 'root') return dir('/');
      if (loc.at === 'dir') return dir(loc.folder, loc.folder === INBOX);
      const found = await find(loc);
      if (!found) throw new TreeError('not_found', MESSAGES.notFound);
      return found.entry;
    },

    async list(path) {
      const loc = locate(segmentsOf(path));
      if (loc.at === 'root') return [dir(INBOX, true)];
      if (loc.at !== 'dir') {
        if (await exists(loc)) throw new TreeError('failure', 'non è una cartella');
        throw new TreeError('not_found', MESSAGES.notFound);
      }
      const snap = await snapshot();
      if (loc.folder === INBOX) {
        const temps = await spool.listTemp(customerId);
        return [
          ...SUBFOLDERS.map((f) => dir(f)),
          ...[...snap.inbox].map(([name, s]) => storedEntry(name, s)),
          ...temps.map((t): Entry => ({ name: t.name, type: 'file', size: t.size, mtime: t.mtime, writable: true })),
        ];
      }
      if (loc.folder === 'esiti') {
        const known = await outcomeSizes(deps, customerId, [...snap.esiti.values()]);
        return [...snap.esiti].flatMap(([name, o]) => {
          const size = known.get(o);
          return size === undefined ? [] : [outcomeEntry(name, o, size)];
        });
      }
      return [...snap[loc.folder]].map(([name, s]) => storedEntry(name, s));
    },

    async read(path) {
      const loc = locate(segmentsOf(path));
      if (loc.at === 'root' || loc.at === 'dir') throw new TreeError('failure', MESSAGES.isDir);
      const found = await find(loc);
      if (!found) throw new TreeError('not_found', MESSAGES.notFound);
      return found.bytes();
    },

    beginUpload,
    endUpload,
    uploadProgress,

    async upload(path, opts) {
      const { id, plan } = await beginUpload(path, opts);
      return openUpload(plan, (end) => endUpload(id, end), (bytes) => void uploadProgress(id, bytes));
    },

    async abandonUploads(reason) {
      for (const [id, { plan }] of [...open]) {
        // The writing side is gone without ending them: nobody writes these files any more.
        if (!plan.temporary) await rm(plan.file, { force: true }).catch(() => undefined);
        await endUpload(id, { kind: 'aborted', size: 0, reason }).catch(() => undefined);
      }
    },

    async rename(fromPath, toPath) {
      const from = locate(segmentsOf(fromPath));
      if (from.at !== 'inbox' || !isTemporaryName(from.name)) {
        if (await exists(from)) throw new TreeError('denied', from.at === 'root' || from.at === 'dir' ? MESSAGES.noFolders : MESSAGES.keepStored);
        throw new TreeError('not_found', MESSAGES.notFound);
      }
      if (!(await spool.statTemp(customerId, from.name))) throw new TreeError('not_found', MESSAGES.notFound);
      const to = inboxTarget(toPath);
      if (to === from.name) return;
      if (!spool.claim(customerId, from.name)) throw new TreeError('failure', MESSAGES.busy);
      try {
        if (isTemporaryName(to)) {
          if (await spool.statTemp(customerId, to)) throw new TreeError('exists', 'esiste già un file con quel nome');
          if (!spool.claim(customerId, to)) throw new TreeError('failure', MESSAGES.busy);
          try {
            await spool.renameTemp(customerId, from.name, to);
          } finally {
            spool.release(customerId, to);
          }
          return;
        }
        if (uploads >= LIMITS.filesPerSession) throw new TreeError('failure', MESSAGES.tooManyFiles);
        uploads++;
        // A second name for the same bytes in uploads/, which commit takes over (and deletes once judged), so that
        // the temporary file can go now. No copy: a hard link within the spool.
        const upload = spool.newUploadFile();
        await link(spool.tempDataFile(customerId, from.name), upload).catch((err: unknown) => {
          log.error({ err, file: from.name }, 'cannot link a temporary upload into the spool');
          throw new TreeError('failure', MESSAGES.notStored);
        });
        await commit(upload, to, toPath);
        // Committed: the temporary file must go, or a second rename would register it again.
        await spool.removeTemp(customerId, from.name).catch((err: unknown) => log.error({ err, file: from.name }, 'could not delete a committed temporary file'));
      } finally {
        spool.release(customerId, from.name);
      }
    },

    async remove(path) {
      const loc = locate(segmentsOf(path));
      if (loc.at === 'inbox' && isTemporaryName(loc.name) && (await spool.statTemp(customerId, loc.name))) {
        if (spool.isBusy(customerId, loc.name)) throw new TreeError('failure', MESSAGES.busy);
        await spool.removeTemp(customerId, loc.name);
        log.info({ file: loc.name }, 'temporary upload deleted by the client');
        return;
      }
      if (await exists(loc)) throw new TreeError('denied', loc.at === 'root' || loc.at === 'dir' ? MESSAGES.noFolders : MESSAGES.keepStored);
      throw new TreeError('not_found', MESSAGES.notFound);
    },

    async mkdir() {
      throw new TreeError('denied', MESSAGES.noFolders);
    },

    async rmdir() {
      throw new TreeError('denied', MESSAGES.noFolders);
    },

    async setAttributes(path) {
      const loc = locate(segmentsOf(path));
      if (loc.at === 'inbox') return;
      if (await exists(loc)) throw new TreeError('denied', 'file di sola lettura');
      throw new TreeError('not_found', MESSAGES.notFound);
    },
  };
}
