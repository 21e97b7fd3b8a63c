/**
 * The reply e-mail as an operator reads it in the console: decoded (quoted-printable, base64, RFC 2047 subjects and
 * charsets undone by mailparser, as the customer's mail program would show it), not the stored RFC 5322 bytes.
 */
import { simpleParser } from 'mailparser';
import { localTime } from '../../../render/local-time.ts';
import { RAW_PREVIEW_BYTES, rawPreview } from '../format.ts';

/** Headers, the plain-text body and the attachments' names of a stored reply; the raw bytes if they cannot be parsed. */
export async function replyView(raw: Buffer, timeZone: string): Promise<string> {
  let parsed;
  try {
    parsed = await simpleParser(raw.subarray(0, RAW_PREVIEW_BYTES), { skipHtmlToText: true, skipImageLinks: true, skipTextLinks: true });
  } catch {
    return rawPreview(raw).text;
  }
  const lines: string[] = [];
  const header = (name: string, value: string | undefined) => {
    if (value) lines.push(`${name}: ${value}`);
  };
  header('Da', parsed.from?.text);
  header('A', Array.isArray(parsed.to) ? parsed.to.map((a) => a.text).join(', ') : parsed.to?.text);
  header('Oggetto', parsed.subject);
  header('Data', parsed.date ? localTime(parsed.date.toISOString(), timeZone, true) : undefined);
  header('Message-ID', parsed.messageId);
  header('In risposta a', parsed.inReplyTo);
  lines.push('', (parsed.text ?? '').trimEnd());
  if (parsed.attachments.length > 0) {
    lines.push('', `Allegati: ${parsed.attachments.map((a) => `${a.filename ?? 'senza nome'} (${a.contentType}, ${a.size} byte)`).join(', ')}`);
  }
  // Control characters made visible, as for the raw file.
  return rawPreview(Buffer.from(lines.join('\n'), 'utf8')).text;
}
