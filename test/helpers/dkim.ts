// Real DKIM-signed messages for the sender-check tests: a fresh key pair whose public half goes in the fixture DNS
// (test/helpers/dns-server.ts), and messages built and signed by nodemailer.
import { generateKeyPairSync } from 'node:crypto';
import nodemailer from 'nodemailer';

/** A DKIM key pair: the private half signs, the public half is published in the fixture DNS. */
export function dkimKey(): { privateKey: string; record: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
  const der = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
  return { privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), record: `v=DKIM1; k=rsa; p=${der}` };
}

/** A message as nodemailer builds it (CRLF line ends), DKIM-signed when `dkim` is given. */
export async function compose(opts: {
  from: string; to: string; replyTo?: string; subject?: string; dkim?: { domainName: string; keySelector: string; privateKey: string };
  headers?: Record<string, string>; attachments?: { filename: string; content: string; contentType?: string }[];
}): Promise<Buffer> {
  const t = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows', ...(opts.dkim ? { dkim: opts.dkim } : {}) });
  const info = await t.sendMail({
    from: opts.from, to: opts.to, replyTo: opts.replyTo, subject: opts.subject ?? 'ordine', text: 'ordine in allegato', headers: opts.headers,
    attachments: opts.attachments,
  });
  return info.message as Buffer;
}

