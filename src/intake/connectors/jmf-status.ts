/**
 * JMF `Signal Type="Status"` (JMF 1.x) and `SignalStatus` (XJMF 2.x): a prepress or press system telling where a
 * job stands. The job is named by JobPhase/@QueueEntryID, which is the order's id_ordine (what this service answered
 * to SubmitQueueEntry). Each JobPhase/@Status (a JDF NodeStatus) maps to a production state where the meaning is the
 * same; the table below is the reference (docs/customers/connettori-stato-jmf.md is generated from it).
 *
 * Not mapped, on purpose: Completed means the job is finished on that device, which is neither shipped nor delivered
 * (the MIS reports those through POST /api/v1/ordini/{id}/stato); Waiting and the other pre-start states mean
 * nothing has started. A status that is not a JDF NodeStatus at all is refused.
 */
import type { ProductionState } from '../../domain/types.ts';
import { attr, children, type XmlRoot, type XNode } from './xml-tree.ts';

export interface StatusMapping {
  /** JDF NodeStatus (JMF 1.x and XJMF 2.x; some only in 1.x). */
  status: string;
  /** The production state it sets; undefined: acknowledged, the order's state does not change. */
  stato?: ProductionState;
  /** Why, in Italian: the table is shown to customers' integrators (docs/customers/connettori-stato-jmf.md). */
  why: string;
}

export const JMF_STATUS_MAPPING: readonly StatusMapping[] = [
  { status: 'Setup', stato: 'in_lavorazione', why: 'la macchina viene preparata per il lavoro: la produzione è iniziata' },
  { status: 'InProgress', stato: 'in_lavorazione', why: 'il lavoro è in corso' },
  { status: 'Cleanup', stato: 'in_lavorazione', why: 'il lavoro è stato eseguito; la macchina viene pulita' },
  { status: 'Stopped', stato: 'in_lavorazione', why: 'iniziato e poi fermato; può riprendere' },
  { status: 'Suspended', stato: 'in_lavorazione', why: 'iniziato e poi sospeso; può riprendere' },
  { status: 'Aborted', stato: 'annullato', why: 'il lavoro è stato interrotto e non riprenderà (definitivo, come annullato)' },
  { status: 'Completed', why: 'finito su questa macchina, che non vuol dire spedito né consegnato: li comunica il gestionale' },
  { status: 'Waiting', why: 'in coda, non iniziato' },
  { status: 'Ready', why: 'JDF 1.x: pronto, non iniziato' },
  { status: 'TestRunInProgress', why: 'JDF 1.x: prova, non produzione' },
  { status: 'FailedTestRun', why: 'JDF 1.x: prova non riuscita; nulla è iniziato' },
  { status: 'Spawned', why: 'JDF 1.x: passato a un altro processo, che comunica il suo stato' },
  { status: 'Pool', why: 'JDF 1.x: le parti hanno stati diversi, comunicati per parte' },
  { status: 'Part', why: 'JDF 1.x: lo stato è dato per parte' },
];

/** One JobPhase of the signal. */
export interface JobStatusReport {
  queueEntryId?: string;
  jobId?: string;
  status?: string;
}

/** JobPhases read from one signal: a device reports the jobs it is running, a handful; more is not a status signal. */
export const MAX_JOB_PHASES = 50;

export function statusMapping(status: string | undefined): StatusMapping | undefined {
  return JMF_STATUS_MAPPING.find((m) => m.status === status);
}

function reports(signal: XNode): JobStatusReport[] {
  return children(signal, 'DeviceInfo').flatMap((d) => children(d, 'JobPhase')).map((p) => {
    const r: JobStatusReport = {};
    const qe = attr(p, 'QueueEntryID');
    const job = attr(p, 'JobID');
    const status = attr(p, 'Status');
    if (qe !== undefined) r.queueEntryId = qe;
    if (job !== undefined) r.jobId = job;
    if (status !== undefined) r.status = status;
    return r;
  });
}

/** The JobPhases of a Status signal, or undefined when the message is not one. */
export function statusSignalReports(root: XmlRoot): JobStatusReport[] | undefined {
  if (root.name === 'JMF') {
    const signals = children(root.node, 'Signal').filter((s) => attr(s, 'Type') === 'Status');
    return signals.length > 0 ? signals.flatMap(reports) : undefined;
  }
  if (root.name === 'XJMF') {
    const signals = children(root.node, 'SignalStatus');
    return signals.length > 0 ? signals.flatMap(reports) : undefined;
  }
  return undefined;
}
