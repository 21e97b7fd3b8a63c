/**
 * Types the decoder's parts share (the JDF/XJDF readers, the JMF reader and its responses, the product keys), apart
 * from index.ts so that they need not import the module that imports them.
 */

import type { JobStatusReport } from './jmf-status.ts';

/** What a connector's lookup table gives for one product key. */
export interface ArticleLookup { codice_articolo: string; unita_misura?: string }

export interface JmfRequestInfo {
  kind: 'jmf' | 'xjmf';
  /** e.g. SubmitQueueEntry, KnownMessages, QueueStatus (JMF); CommandSubmitQueueEntry, QueryKnownMessages (XJMF). */
  messageType: string;
  /** ID of the Command/Query (JMF) or Header/@ID (XJMF): echoed as refID in the response. */
  messageId?: string;
  senderId?: string;
  /** JMF Version / XJMF Version attribute, echoed. */
  version?: string;
  /** ResubmitQueueEntry / CommandResubmitQueueEntry: ResubmissionParams/@QueueEntryID, the order to replace. */
  queueEntryId?: string;
  /** A Status signal (jmf-status.ts): its JobPhases, each naming an order by QueueEntryID. */
  statusReports?: JobStatusReport[];
}
