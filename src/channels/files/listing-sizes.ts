/**
 * Sizes of the outcome files in /ordini/esiti for listings. They are rendered on the fly (outcome-file.ts), so their
 * size is known only by rendering them: from the outcomes in the store, a few submissions at a time, on every
 * instance and after a restart alike. The cache only spares rendering the same file again; its key holds everything
 * the bytes depend on (name, processing time), so a reprocessed or renamed file is never shown with an old size.
 * Stored files need none of this: their size comes with the listing (SubmissionSummary.size).
 *
 * An outcome file recaps its orders' registered lines with the catalog's descriptions (src/render/recap.ts): a
 * catalog import that rewords a description changes the bytes, not the key. Reading a file renders it and sets its
 * size again, and clients read to the end of a file, not to the size listed; a size a description out of date is
 * what that costs, against keeping every file's rendering.
 */
import type { Outcome } from '../../domain/types.ts';
import type { SubmissionSummary } from '../../domain/store/store.ts';
import type { FilesChannelStore } from '../../domain/store/ports.ts';
import type { PeppolId } from '../../domain/store/store.ts';
import { responseToOutcome, type ResponseSettings } from '../../intake/order-response.ts';
import { renderOutcomeJson, renderOutcomeText, type OutcomeFileInput } from '../../render/outcome-file.ts';
import { gatherRecap, RECAP_LIMITS, type Recap, type RecapPort } from '../../render/recap.ts';
import type { SizeCache } from './tree-model.ts';

export interface OutcomeFileRef {
  s: SubmissionSummary;
  /** `xml`: the Peppol Order Response of a UBL ordering document (no file for any other XML). */
  kind: 'json' | 'txt' | 'xml';
  /** The listed name of the file the outcome belongs to. */
  base: string;
  /** `s` is the order desk's correction of that file (channel console): the file tells the customer of it. */
  correction?: boolean;
}

/**
 * Outcomes loaded per query: one outcome of a 100,000-order file is tens of MB of JSON, so a listing that must
 * render many loads them in small groups rather than all at once.
 */
const OUTCOMES_PER_QUERY = 20;

export function outcomeInput(s: Pick<SubmissionSummary, 'id' | 'receivedAt' | 'processedAt' | 'meta'>, outcome: Outcome, base: string, timeZone: string): OutcomeFileInput {
  return {
    name: base, submissionId: s.id, receivedAt: s.receivedAt, processedAt: s.processedAt,
    alreadyReceivedAt: s.meta.gia_ricevuto_il, outcome, timeZone,
  };
}

/**
 * The Order Response of a file that is a UBL ordering document, rendered from its stored bytes and its outcome;
 * undefined for any other file (its `.esito.xml` is not listed).
 */
export async function orderResponseBytes(
  store: Pick<FilesChannelStore, 'getSubmission'>, s: Pick<SubmissionSummary, 'id' | 'processedAt' | 'receivedAt'>, outcome: Outcome, settings: ResponseSettings,
): Promise<Buffer | undefined> {
  const stored = await store.getSubmission(s.id);
  if (!stored) return undefined;
  // Issued when the file was judged: the same bytes every time it is listed or read.
  const r = responseToOutcome(stored, outcome.orders[0], outcome.fileError?.message, settings, new Date(s.processedAt ?? s.receivedAt));
  return r && Buffer.from(r.xml, 'utf8');
}

export function renderOutcomeFile(input: OutcomeFileInput, kind: 'json' | 'txt'): Buffer {
  return kind === 'json' ? renderOutcomeJson(input) : renderOutcomeText(input);
}

/**
 * The bytes of an outcome file: the outcome with the recap of its registered lines, read from the store (scoped to
 * the customer), and for a correction the notice that the order desk registered the order.
 */
export async function outcomeFileBytes(
  store: RecapPort, customerId: string, ref: Pick<OutcomeFileRef, 'base' | 'correction'> & { kind: 'json' | 'txt' }, s: Pick<SubmissionSummary, 'id' | 'receivedAt' | 'processedAt' | 'meta'>,
  outcome: Outcome, timeZone: string, known?: Recap,
): Promise<Buffer> {
  const recap = known ?? await gatherRecap(store, customerId, outcome.orders, RECAP_LIMITS.file);
  const registered = ref.correction ? outcome.orders.find((o) => o?.esito === 'ok') : undefined;
  const correctedBy = registered?.numero_ordine
    ? { numero_ordine: registered.numero_ordine, ...(registered.riferimento_ordine ? { riferimento_ordine: registered.riferimento_ordine } : {}) }
    : undefined;
  return renderOutcomeFile({ ...outcomeInput(s, outcome, ref.base, timeZone), recap, ...(correctedBy ? { correctedBy } : {}) }, ref.kind);
}

export function outcomeSizeKey(id: string, kind: OutcomeFileRef['kind'], processedAt: string | undefined, base: string): string {
  return `${id}:${kind}:${processedAt ?? ''}:${base}`;
}

/** The size of every outcome file in `refs` (rendering those not cached); files whose outcome is gone are left out. */
export async function outcomeSizes(
  deps: { store: FilesChannelStore; sizes: SizeCache; timeZone: string; peppolId?: PeppolId }, customerId: string, refs: readonly OutcomeFileRef[],
): Promise<Map<OutcomeFileRef, number>> {
  const out = new Map<OutcomeFileRef, number>();
  const missing = new Map<string, OutcomeFileRef[]>();
  for (const ref of refs) {
    const known = deps.sizes.get(outcomeSizeKey(ref.s.id, ref.kind, ref.s.processedAt, ref.base));
    if (known !== undefined) out.set(ref, known);
    else missing.set(ref.s.id, [...(missing.get(ref.s.id) ?? []), ref]);
  }
  const ids = [...missing.keys()];
  for (let i = 0; i < ids.length; i += OUTCOMES_PER_QUERY) {
    const outcomes = await deps.store.getSubmissionOutcomes(customerId, ids.slice(i, i + OUTCOMES_PER_QUERY));
    for (const [id, outcome] of outcomes) {
      // Both files of a submission (JSON and text) show the same recap: read once.
      const recap = await gatherRecap(deps.store, customerId, outcome.orders, RECAP_LIMITS.file);
      for (const ref of missing.get(id) ?? []) {
        if (ref.kind === 'xml') {
          const bytes = await orderResponseBytes(deps.store, ref.s, outcome, { timeZone: deps.timeZone, ...(deps.peppolId ? { seller: deps.peppolId } : {}) });
          if (bytes === undefined) continue;
          deps.sizes.set(outcomeSizeKey(id, ref.kind, ref.s.processedAt, ref.base), bytes.length);
          out.set(ref, bytes.length);
          continue;
        }
        const size = (await outcomeFileBytes(deps.store, customerId, { ...ref, kind: ref.kind }, ref.s, outcome, deps.timeZone, recap)).length;
        deps.sizes.set(outcomeSizeKey(id, ref.kind, ref.s.processedAt, ref.base), size);
        out.set(ref, size);
      }
    }
  }
  return out;
}
