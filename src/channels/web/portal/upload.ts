/**
 * File upload in the portal: one or many files in one multipart request, each handed to the intake core as a
 * submission of channel `portal` and judged at once, so the page answers with every order's outcome.
 */
import type { FastifyInstance } from 'fastify';
import type { Outcome, StoredSubmission } from '../../../domain/types.ts';
import type { WebContext } from '../context.ts';
import { sizeLabel } from '../format.ts';
import { sourceOf } from '../render.ts';
import { baseMediaType, formatOfMediaType } from '../../../intake/formats/index.ts';
import { portalPage, principalOf } from './page.ts';
import { outcomeRecap } from '../recap.ts';
import type { Recap } from '../../../render/recap.ts';

interface FileResult {
  fileName: string;
  submission?: StoredSubmission;
  outcome?: Outcome;
  recap?: Recap;
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

export function registerUpload(app: FastifyInstance, ctx: WebContext): void {
  app.post('/invia', async (req, reply) => {
    const principal = principalOf(req);
    const results: FileResult[] = [];
    for await (const part of req.files()) {
      const fileName = part.filename || 'file';
      const raw = await part.toBuffer();
      if (part.file.truncated) {
        results.push({ fileName, error: `Il file supera la dimensione massima di ${sizeLabel(ctx.maxFileBytes)} e non è stato accettato.` });
        continue;
      }
      if (raw.length === 0) {
        results.push({ fileName, error: 'Il file è vuoto.' });
        continue;
      }
      const { submission, outcome } = await ctx.intake.submit({
        principal, channel: 'portal', fileName, mediaType: trusted(part.mimetype), raw, meta: { remote: sourceOf(req) },
      });
      results.push({ fileName, submission, outcome, recap: await outcomeRecap(ctx.store, principal.customerId, outcome) });
    }
    const status = results.length === 0 ? 400 : 200;
    return portalPage(ctx, req, reply.code(status), 'portal/result.eta', { title: 'Esito dell\'invio', nav: 'home', results });
  });
}
