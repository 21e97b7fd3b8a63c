/**
 * JMF ResubmitQueueEntry / XJMF CommandResubmitQueueEntry (issue 20): a prepress system replacing a job it sent.
 * Registered orders cannot be changed yet (there are no order changes in the service), so the answer says so in the
 * controller's own terms, and nothing is stored (like a query, the request registers nothing):
 * - ResubmissionParams/@QueueEntryID missing → ReturnCode 7 (insufficient parameters);
 * - it names no order of the connector's customers → ReturnCode 105 (queue entry not found), as a JDF device does;
 * - it names one → ReturnCode 5 (command not implemented): the order stays as registered.
 * The QueueEntryID a submission got is the order's id_ordine, which is what a controller sends back here.
 */
import { JMF_RETURN_CODES, renderJmfResponse, type JmfRequestInfo } from '../../intake/connectors/index.ts';
import type { Connector } from '../../domain/store/connectors.ts';
import type { ConnectorOrderStore } from '../../domain/store/ports.ts';
import type { JmfAnswer } from './render.ts';

export function isResubmit(req: JmfRequestInfo): boolean {
  return req.messageType === 'CommandResubmitQueueEntry' || (req.kind === 'jmf' && req.messageType === 'ResubmitQueueEntry');
}

export async function answerResubmit(store: ConnectorOrderStore, connector: Connector, req: JmfRequestInfo): Promise<JmfAnswer> {
  const qe = req.queueEntryId;
  if (qe === undefined) {
    return renderJmfResponse(req, { ok: false, returnCode: JMF_RETURN_CODES.insufficientParameters, text: ['ResubmissionParams/@QueueEntryID manca: indicare l\'id_ordine ricevuto come QueueEntryID'] });
  }
  // Ids are short; a longer value cannot be one of ours and is not worth a query.
  const [owner] = qe.length > 100 ? [] : await store.connectorOrderOwners(connector.id, { id: qe });
  if (owner === undefined) {
    return renderJmfResponse(req, {
      ok: false, returnCode: JMF_RETURN_CODES.queueEntryNotFound,
      text: [`Nessun ordine con QueueEntryID "${qe.slice(0, 100)}" per questo connettore: per un nuovo lavoro inviare ${req.kind === 'xjmf' ? 'CommandSubmitQueueEntry' : 'SubmitQueueEntry'}`],
    });
  }
  const order = await store.getOrder(owner, qe);
  return renderJmfResponse(req, {
    ok: false, returnCode: JMF_RETURN_CODES.notImplemented,
    text: [`L'ordine ${order?.numero_ordine ?? qe} è registrato e non può ancora essere sostituito da un nuovo invio: resta com'è. Per modificarlo contattate la tipografia.`],
  });
}
