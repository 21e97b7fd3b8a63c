/**
 * JMF `Signal Type="Status"` / XJMF `SignalStatus` from a connector: each JobPhase names an order by QueueEntryID (its
 * id_ordine) and its Status maps to a production state (src/intake/connectors/jmf-status.ts), applied with the same
 * state machine as POST /api/v1/ordini/{id}/stato (src/handoff/production.ts) and written with its
 * `ordine.stato_aggiornato` event. Only orders of the customers the connector is bound to can be named: another
 * customer's order is "not found" (105), exactly like one that does not exist.
 *
 * The answer is a JMF Response / XJMF ResponseStatus with one Comment per JobPhase, in Italian, and the ReturnCode
 * of the first refusal (0 when every JobPhase was taken): 7 QueueEntryID missing, 105 no such order for this
 * connector, 6 a Status that is not a JDF NodeStatus or a move the order cannot make (e.g. "annullato" after
 * "spedito"). Nothing is stored but the state changes themselves.
 */
import { isIntakeError } from '../../domain/errors.ts';
import { updateProductionState } from '../../handoff/production.ts';
import {
  escapeXml, jmfDocument, JMF_RETURN_CODES, MAX_JOB_PHASES, statusMapping, xjmfDocument, type JmfRequestInfo, type JobStatusReport,
} from '../../intake/connectors/index.ts';
import type { Connector } from '../../domain/store/connectors.ts';
import type { ConnectorOrderStore } from '../../domain/store/ports.ts';
import type { JmfAnswer } from './render.ts';

const LABELS = { in_lavorazione: 'in lavorazione', spedito: 'spedito', consegnato: 'consegnato', annullato: 'annullato' } as const;

export function isStatusSignal(req: JmfRequestInfo): boolean {
  return req.statusReports !== undefined;
}

interface Verdict {
  code: number;
  text: string;
}

/** Ids are short (UUIDs); a longer value cannot be one of ours and is not worth a query. */
const MAX_ID = 100;

async function judge(store: ConnectorOrderStore, connector: Connector, r: JobStatusReport, onEvent: () => void): Promise<Verdict> {
  const qe = r.queueEntryId;
  if (qe === undefined) {
    return { code: JMF_RETURN_CODES.insufficientParameters, text: `JobPhase${r.jobId ? ` del lavoro ${r.jobId.slice(0, MAX_ID)}` : ''} senza QueueEntryID: indicare l'id_ordine ricevuto come QueueEntryID` };
  }
  const [owner] = qe.length > MAX_ID ? [] : await store.connectorOrderOwners(connector.id, { id: qe });
  if (owner === undefined) {
    return { code: JMF_RETURN_CODES.queueEntryNotFound, text: `Nessun ordine con QueueEntryID "${qe.slice(0, MAX_ID)}" per questo connettore` };
  }
  const mapping = statusMapping(r.status);
  if (!mapping) {
    return { code: JMF_RETURN_CODES.invalidParameters, text: `Status "${(r.status ?? '').slice(0, 40)}" non è uno stato JDF (NodeStatus): l'ordine resta com'è` };
  }
  const order = await store.getOrder(owner, qe);
  const numero = order?.numero_ordine ?? qe;
  if (!mapping.stato) {
    const now = order?.productionState ? `resta "${LABELS[order.productionState]}"` : 'non ne ha ancora uno';
    return { code: JMF_RETURN_CODES.ok, text: `Ordine ${numero}: lo Status "${mapping.status}" non cambia lo stato di produzione (${now})` };
  }
  try {
    const { changed } = await updateProductionState(
      { store, onEvent },
      { orderId: qe, stato: mapping.stato, integration: `connettore ${connector.name}`, customerId: owner },
    );
    return { code: JMF_RETURN_CODES.ok, text: `Ordine ${numero}: stato di produzione "${LABELS[mapping.stato]}"${changed ? '' : ' (già registrato)'}` };
  } catch (e) {
    if (isIntakeError(e) && e.code === 'STATE_TRANSITION') return { code: JMF_RETURN_CODES.invalidParameters, text: e.messages.join('; ') };
    if (isIntakeError(e) && e.code === 'NOT_FOUND') return { code: JMF_RETURN_CODES.queueEntryNotFound, text: `Nessun ordine con QueueEntryID "${qe}" per questo connettore` };
    throw e;
  }
}

export async function answerStatusSignal(store: ConnectorOrderStore, connector: Connector, req: JmfRequestInfo, onEvent: () => void): Promise<JmfAnswer> {
  const reports = req.statusReports ?? [];
  let verdicts: Verdict[];
  if (reports.length === 0) {
    verdicts = [{ code: JMF_RETURN_CODES.insufficientParameters, text: 'Il segnale Status non contiene nessun DeviceInfo/JobPhase: nessun ordine indicato' }];
  } else if (reports.length > MAX_JOB_PHASES) {
    verdicts = [{ code: JMF_RETURN_CODES.invalidParameters, text: `Il segnale Status contiene ${reports.length} JobPhase: al massimo ${MAX_JOB_PHASES} per messaggio` }];
  } else {
    verdicts = [];
    // One at a time: two phases of one order are applied in the order the device wrote them.
    for (const r of reports) verdicts.push(await judge(store, connector, r, onEvent));
  }
  const code = verdicts.find((v) => v.code !== JMF_RETURN_CODES.ok)?.code ?? JMF_RETURN_CODES.ok;
  const inner = `<Notification Class="${code === JMF_RETURN_CODES.ok ? 'Information' : 'Error'}">`
    + `${verdicts.map((v) => `<Comment>${escapeXml(v.text)}</Comment>`).join('')}</Notification>`;
  return req.kind === 'xjmf'
    ? { contentType: 'application/vnd.cip4-xjmf+xml; charset=UTF-8', body: xjmfDocument(req, code, inner) }
    : { contentType: 'application/vnd.cip4-jmf+xml; charset=UTF-8', body: jmfDocument(req, code, inner) };
}
