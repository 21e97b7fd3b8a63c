/**
 * JMF 1.x and XJMF 2.x requests: which message it is (for the response's refID and Type) and, for a
 * submission, where the ticket is.
 *
 * JMF 1.x: `<JMF SenderID TimeStamp Version><Command ID Type="SubmitQueueEntry"><QueueSubmissionParams URL/>`.
 * XJMF 2.x: `<XJMF Version><Header DeviceID ID Time/><CommandSubmitQueueEntry><Header ID …/>
 * <QueueSubmissionParams URL/>`.
 */
import { IntakeError } from '../../domain/errors.ts';
import type { JmfRequestInfo } from './types.ts';
import { statusSignalReports } from './jmf-status.ts';
import { attr, child, children, type XmlRoot, type XNode } from './xml-tree.ts';

export const JMF_MEDIA_TYPE = 'application/vnd.cip4-jmf+xml';
export const XJMF_MEDIA_TYPE = 'application/vnd.cip4-xjmf+xml';

/** JMF 1.x message families; a JMF holds one or more of them. */
const JMF_FAMILIES = ['Command', 'Query', 'Signal', 'Registration', 'Acknowledge', 'Response'] as const;

function jmfMessages(root: XNode): XNode[] {
  return JMF_FAMILIES.flatMap((f) => children(root, f));
}

function xjmfMessages(root: XNode): Array<{ name: string; node: XNode }> {
  return Object.keys(root)
    .filter((k) => !k.startsWith('@') && k !== '#text' && k !== 'Header')
    .flatMap((name) => children(root, name).map((node) => ({ name, node })));
}

function info(kind: 'jmf' | 'xjmf', messageType: string, more: {
  messageId?: string | undefined; senderId?: string | undefined; version?: string | undefined; queueEntryId?: string | undefined;
}): JmfRequestInfo {
  const out: JmfRequestInfo = { kind, messageType };
  if (more.messageId !== undefined) out.messageId = more.messageId;
  if (more.senderId !== undefined) out.senderId = more.senderId;
  if (more.version !== undefined) out.version = more.version;
  if (more.queueEntryId !== undefined) out.queueEntryId = more.queueEntryId;
  return out;
}

/** The first message of a JMF/XJMF root, or undefined when the root is neither or holds no message. */
export function jmfInfo(root: XmlRoot): JmfRequestInfo | undefined {
  const info = firstMessage(root);
  // A Status signal is answered apart (channels/connectors/status-signal.ts) when it is what the message starts with;
  // a submission that comes first keeps its own path (and answer), so no order is ever dropped for a signal beside it.
  const reports = info && startsWithSignal(root) ? statusSignalReports(root) : undefined;
  if (info && reports) {
    info.messageType = root.name === 'JMF' ? 'Status' : 'SignalStatus';
    info.statusReports = reports;
  }
  return info;
}

/** JMF 1.x: no Command nor Query before the signals (jmfMessages puts those first); XJMF: the first message is one. */
function startsWithSignal(root: XmlRoot): boolean {
  if (root.name === 'JMF') return children(root.node, 'Command').length === 0 && children(root.node, 'Query').length === 0;
  return xjmfMessages(root.node)[0]?.name.startsWith('Signal') === true;
}

function firstMessage(root: XmlRoot): JmfRequestInfo | undefined {
  if (root.name === 'JMF') {
    const first = jmfMessages(root.node)[0];
    const type = attr(first, 'Type');
    if (!first || type === undefined) return undefined;
    return info('jmf', type, {
      messageId: attr(first, 'ID'), senderId: attr(root.node, 'SenderID'), version: attr(root.node, 'Version'),
      queueEntryId: attr(child(first, 'ResubmissionParams'), 'QueueEntryID'),
    });
  }
  if (root.name === 'XJMF') {
    const first = xjmfMessages(root.node)[0];
    if (!first) return undefined;
    const header = child(root.node, 'Header');
    return info('xjmf', first.name, {
      messageId: attr(child(first.node, 'Header'), 'ID') ?? attr(header, 'ID'),
      senderId: attr(header, 'DeviceID') ?? attr(child(first.node, 'Header'), 'DeviceID'),
      version: attr(root.node, 'Version'),
      queueEntryId: attr(child(first.node, 'ResubmissionParams'), 'QueueEntryID'),
    });
  }
  return undefined;
}

/**
 * QueueSubmissionParams of the one submission in the message. Several submissions in one JMF would need one
 * response each; prepress systems send one per request, so more is refused rather than half answered.
 */
export function submissionParams(root: XmlRoot): XNode | undefined {
  const submits = root.name === 'JMF'
    ? children(root.node, 'Command').filter((c) => attr(c, 'Type') === 'SubmitQueueEntry')
    : children(root.node, 'CommandSubmitQueueEntry');
  const label = root.name === 'JMF' ? 'SubmitQueueEntry command' : 'CommandSubmitQueueEntry';
  if (submits.length === 0) return undefined;
  if (submits.length > 1) throw new IntakeError('NOT_PARSEABLE', `send one ${label} per request`);
  const params = child(submits[0], 'QueueSubmissionParams');
  if (!params) throw new IntakeError('NOT_PARSEABLE', `the ${label} has no QueueSubmissionParams`);
  return params;
}
