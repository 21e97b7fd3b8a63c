/**
 * The shape of a received message, judged before it is acknowledged: a message the parser will refuse (a header of
 * megabytes, tens of thousands of headers, a thousand nested multiparts) is refused at DATA time with a 552/554 the
 * sending server reports to its user, instead of a 250 for a message no one will ever read.
 *
 * This is a scan of the bytes, not a MIME parse: it counts Content-Type headers at the start of a line anywhere in
 * the message. That over-counts only when a body line happens to start with "Content-Type:", which can only make
 * an absurd message look absurd sooner. A header name is read as the MIME parser reads it (mailsplit trims the text
 * before the first colon, folded lines joined): `Content-Type : multipart/mixed`, a tab before the colon, or the
 * colon on a continuation line are all a Content-Type header to it, so they are one here too.
 */
import { MAIL_LIMITS } from './limits.ts';

export interface ShapeRefusal {
  code: 552 | 554;
  text: string;
}

export function checkShape(raw: Buffer, limits: Pick<typeof MAIL_LIMITS, 'headerBytes' | 'headerLines' | 'mimeParts' | 'multipartContainers'> = MAIL_LIMITS): ShapeRefusal | undefined {
  const end = raw.indexOf('\r\n\r\n');
  const headerBytes = end < 0 ? raw.length : end + 2;
  if (headerBytes > limits.headerBytes) {
    return { code: 552, text: `5.3.4 Message refused: its header section is ${headerBytes} bytes, the limit is ${limits.headerBytes}` };
  }
  let lines = 0;
  for (let i = raw.indexOf('\n'); i >= 0 && i < headerBytes; i = raw.indexOf('\n', i + 1)) lines++;
  if (lines > limits.headerLines) {
    return { code: 552, text: `5.3.4 Message refused: it has ${lines} header lines, the limit is ${limits.headerLines}` };
  }
  // latin1 keeps one character per byte, so nothing in the message can make this string larger than the message.
  const text = raw.toString('latin1');
  let parts = 0;
  let multiparts = 0;
  // Blanks, and line breaks followed by a blank (folding), may stand on either side of the colon.
  const re = /(?:^|\n)content-type(?:[ \t]|\r?\n[ \t])*:(?:[ \t]|\r?\n[ \t])*(multipart\/)?/gi;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    parts++;
    if (m[1]) multiparts++;
    if (parts > limits.mimeParts) {
      return { code: 554, text: `5.6.0 Message refused: it has more than ${limits.mimeParts} MIME parts` };
    }
    if (multiparts > limits.multipartContainers) {
      return { code: 554, text: `5.6.0 Message refused: more than ${limits.multipartContainers} nested or multipart sections` };
    }
  }
  return undefined;
}
