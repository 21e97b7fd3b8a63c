/**
 * File upload in the portal: one or many files in one multipart request, each handed to the intake core as a
 * submission of channel `portal` and judged at once, so the page answers with every order's outcome.
 *
 * The files are written to the spool as they arrive (upload-spool.ts), and nothing is stored before the whole
 * request has been read: a request with too many files is refused whole, with nothing registered. Then each file,
 * one after the other, waits for room in the memory budget the file channels use too (memory-budget.ts) before it
 * is stored and judged, read from its spool file like an FTP upload.
 */
import type { FastifyInstance } from 'fastify';
import type { Outcome, StoredSubmission } from '../../../domain/types.ts';
import type { WebContext } from '../context.ts';
import { sizeLabel } from '../format.ts';
import { sourceOf } from '../render.ts';
import { baseMediaType, formatOfMediaType } from '../../../intake/formats/index.ts';
import { uploadMemoryCost } from '../../upload-memory.ts';
import { portalPage, principalOf } from './page.ts';
import { outcomeRecap } from '../recap.ts';
import type { Recap } from '../../../render/recap.ts';
import type { SpooledFile } from './upload-spool.ts';

/** Files one portal upload may carry at once: a day's orders, not a bulk transfer (that is what SFTP is for). */
export const MAX_FILES_PER_UPLOAD = 20;

/**
 * How long a received file waits for room in the memory budget before it is refused with a temporary error: as
 * for FTP/SFTP (the browser is waiting for the page meanwhile; its whole request has been read by then, so no
 * request timeout runs).
 */
const BUDGET_WAIT_MS = 5 * 60_000;

const MESSAGES = {
  tooMany: `Troppi file in un solo invio: al massimo ${MAX_FILES_PER_UPLOAD}. Nessun file è stato registrato: inviarli in più volte.`,
  busy: 'Il servizio è momentaneamente occupato da altri file grandi: il file non è stato registrato, inviarlo di nuovo tra qualche minuto.',
  empty: 'Il file è vuoto.',
};

interface FileResult {
  fileName: string;
  submission?: StoredSubmission;
  outcome?: Outcome;
  recap?: Recap;
  error?: string;
}

/** A file of the request as read: on disk, or already refused. */
interface Received {
  fileName: string;
  mediaType?: string;
  file?: SpooledFile;
  error?: string;
}

/**
 * Browsers guess a file's type from its extension and the desktop's settings (Windows calls .csv files
 * application/vnd.ms-excel); only the types that name one of our formats exactly are passed on, the rest is left to
 * the file name and the content, as for FTP uploads.
 */
function trusted(mime: string | undefined): string | undefined {
  const base = baseMediaType(mime);
  return base && formatOfMediaType(base) !== undefined ? base : undefined;
}

/** @fastify/multipart's errors when a request carries more files, or parts, than its limits. */
function tooMany(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'FST_FILES_LIMIT' || code === 'FST_PARTS_LIMIT';
}

export function registerUpload(app: FastifyInstance, ctx: WebContext): void {
  const spool = ctx.portalSpool;

  app.post('/invia', async (req, reply) => {
    const principal = principalOf(req);
    const received: Received[] = [];
    const dropAll = () => Promise.all(received.map((r) => r.file && spool.drop(r.file.path)));
    try {
      for await (const part of req.files()) {
        const fileName = part.filename || 'file';
        const file = await spool.take(part.file);
        if (part.file.truncated || file.size === 0) {
          await spool.drop(file.path);
          received.push({ fileName, error: file.size === 0 ? MESSAGES.empty : `Il file supera la dimensione massima di ${sizeLabel(ctx.maxFileBytes)} e non è stato accettato.` });
          continue;
        }
        received.push({ fileName, mediaType: trusted(part.mimetype), file });
      }
    } catch (err) {
      await dropAll();
      if (!tooMany(err)) throw err;
      req.log.info({ files: received.length }, 'portal upload refused: too many files');
      return portalPage(ctx, req, reply.code(413), 'error.eta', { title: 'Troppi file', message: MESSAGES.tooMany, back: '/portale/', area: 'portale' });
    }

    const results: FileResult[] = [];
    try {
      for (const r of received) {
        if (!r.file) {
          results.push({ fileName: r.fileName, error: r.error });
          continue;
        }
        const { fileName, file } = r;
        const cost = await uploadMemoryCost(file.path, fileName, file.size);
        const release = await ctx.budget.acquire(cost, BUDGET_WAIT_MS);
        if (!release) {
          ctx.log.warn({ file: fileName, bytes: file.size, cost, inUse: ctx.budget.inUse(), waiting: ctx.budget.waiting() }, 'upload refused: memory budget full');
          results.push({ fileName, error: MESSAGES.busy });
          continue;
        }
        try {
          const { submission, outcome } = await ctx.intake.submit({
            principal, channel: 'portal', fileName, mediaType: r.mediaType, raw: EMPTY,
            rawFile: { path: file.path, size: file.size, sha256: file.sha256 }, meta: { remote: sourceOf(req) },
          });
          results.push({ fileName, submission, outcome, recap: await outcomeRecap(ctx.store, principal.customerId, outcome) });
        } finally {
          release();
          await spool.drop(file.path);
        }
      }
    } finally {
      await dropAll();
    }
    const status = results.length === 0 ? 400 : 200;
    return portalPage(ctx, req, reply.code(status), 'portal/result.eta', { title: 'Esito dell\'invio', nav: 'home', results });
  });
}

const EMPTY = Buffer.alloc(0);
