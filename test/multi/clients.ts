// Real clients of every channel for the multi-instance tests, each answering whether its hand-over was
// acknowledged: an instance may die at any step, and a client that got no acknowledgement says so instead of
// failing the test.
import { execFile } from 'node:child_process';
import nodemailer from 'nodemailer';
import ssh2 from 'ssh2';
import type { ProvisionedCustomer } from '../../src/customers/provision.ts';
import { order, TEST_ARTICLES } from '../helpers/service.ts';

/** What the file and mail clients need of a customer (provisioned in the store, or by a test service). */
type Sender = Pick<ProvisionedCustomer, 'mailbox' | 'ftpUser' | 'ftpPassword'>;

export interface Sent {
  channel: string;
  refs: string[];
  acked: boolean;
  /** For synchronous REST: the number the customer was told. */
  numero?: string;
  /** For SMTP: the Message-ID the message carried. */
  messageId?: string;
  /** Why it was not acknowledged (REST, e-mail): the answer or the error, for a failing assertion to name. */
  why?: string;
}

/** A big order (thousands of lines) takes a while to judge and register: an instance is sure to hold some. */
export function heavy(ref: string, lines = 3000) {
  const righe = Array.from({ length: lines }, (_, i) => ({ codice_articolo: TEST_ARTICLES[i % 3]!.codice_articolo, quantita: i + 1, unita_misura: TEST_ARTICLES[i % 3]!.unita_misura }));
  return order('C001', ref, { righe });
}

export async function rest(httpPort: number, key: string, body: object, refs: string[], async = false): Promise<Sent> {
  try {
    const res = await fetch(`http://127.0.0.1:${httpPort}/api/v1/ordini`, {
      method: 'POST', body: JSON.stringify(body), signal: AbortSignal.timeout(60_000),
      headers: { 'content-type': 'application/json', 'x-api-key': key, ...(async ? { prefer: 'respond-async' } : {}) },
    });
    const json = (await res.json()) as { numero_ordine?: string };
    const acked = res.status === (async ? 202 : 201);
    return { channel: 'rest', refs, acked, numero: async ? undefined : json.numero_ordine, ...(acked ? {} : { why: `HTTP ${res.status}` }) };
  } catch (err) {
    // The connection died with the instance (or the client gave up): not acknowledged.
    return { channel: 'rest', refs, acked: false, why: (err as Error).message };
  }
}

/** SOAP InviaOrdine: synchronous, so acknowledged only with its outcome. */
export async function soap(httpPort: number, key: string, body: ReturnType<typeof order>): Promise<Sent> {
  const ns = `http://127.0.0.1:${httpPort}/ws/ordini`;
  const e = (name: string, v: string | number) => `<ord:${name}>${v}</ord:${name}>`;
  const righe = body.righe.map((l) => `<ord:riga>${e('codice_articolo', l.codice_articolo)}${e('quantita', l.quantita)}${e('unita_misura', l.unita_misura)}</ord:riga>`).join('');
  const xml = `<?xml version="1.0" encoding="UTF-8"?>
<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:ord="${ns}"><soapenv:Header><ord:Autenticazione><ord:ApiKey>${key}</ord:ApiKey></ord:Autenticazione></soapenv:Header><soapenv:Body><ord:InviaOrdine>${e('codice_cliente', body.codice_cliente)}${e('riferimento_ordine', body.riferimento_ordine)}${e('data_ordine', body.data_ordine)}${e('data_consegna', String(body.data_consegna))}<ord:righe>${righe}</ord:righe></ord:InviaOrdine></soapenv:Body></soapenv:Envelope>`;
  try {
    const res = await fetch(`http://127.0.0.1:${httpPort}/ws/ordini`, {
      method: 'POST', body: xml, signal: AbortSignal.timeout(60_000), headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: `"${ns}#InviaOrdine"` },
    });
    await res.text();
    return { channel: 'soap', refs: [body.riferimento_ordine], acked: res.status === 200 };
  } catch {
    return { channel: 'soap', refs: [body.riferimento_ordine], acked: false };
  }
}

/** A connector (service-x-key) hands one JSON order to a production site: synchronous, 201 with its outcome. */
export async function connector(httpPort: number, key: string, site: string, body: object): Promise<Sent> {
  const refs = [(body as { riferimento_ordine: string }).riferimento_ordine];
  try {
    const res = await fetch(`http://127.0.0.1:${httpPort}/api/v1/connettori/${site}/ordini`, {
      method: 'POST', body: JSON.stringify(body), signal: AbortSignal.timeout(60_000), headers: { 'content-type': 'application/json', 'service-x-key': key },
    });
    await res.arrayBuffer();
    return { channel: 'connector', refs, acked: res.status === 201 };
  } catch {
    return { channel: 'connector', refs, acked: false };
  }
}

/**
 * One SFTP upload on its own connection. The instance may die at any step (before the session is ready, before the
 * subsystem opens, mid-write), and ssh2 then calls no callback at all: the closed connection, or 60 s, is the answer (generous: a busy instance is slow to shake hands).
 */
export function sftpUpload(port: number, c: Sender, name: string, refs: string[], content = JSON.stringify(refs.map((r) => order('C001', r)))): Promise<Sent> {
  return new Promise((resolve) => {
    const conn = new ssh2.Client();
    let settled = false;
    const finish = (acked: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      conn.end();
      resolve({ channel: 'sftp', refs, acked });
    };
    const timer = setTimeout(() => finish(false), 60_000);
    conn.on('error', () => finish(false));
    conn.on('close', () => finish(false));
    conn.on('ready', () => conn.sftp((err, sftp) => {
      if (err) return finish(false);
      // The close status is the acknowledgement: writeFile calls back only after it.
      sftp.writeFile(`/ordini/${name}`, content, (e) => finish(!e));
    }));
    conn.connect({ host: '127.0.0.1', port, username: c.ftpUser, password: c.ftpPassword, readyTimeout: 30_000, tryKeyboard: false });
  });
}

/** One FTP upload with curl (passive mode); its exit status 0 means the server answered 226. */
export function ftpUpload(port: number, c: Sender, name: string, refs: string[], content: string): Promise<Sent> {
  return new Promise((resolve) => {
    const p = execFile('curl', ['-sS', '--max-time', '60', '-T', '-', '--user', `${c.ftpUser}:${c.ftpPassword}`, `ftp://127.0.0.1:${port}/ordini/${name}`],
      (err) => resolve({ channel: 'ftp', refs, acked: !err }));
    p.stdin!.end(content);
  });
}

/**
 * One message over its own SMTP connection, each of `refs` an order file attached to it. The 250 after DATA is the
 * acknowledgement; an instance dying before it closes the connection, and nodemailer rejects.
 */
export async function smtpSend(port: number, c: Sender, refs: string[], make: (ref: string) => object = (r) => order('C001', r)): Promise<Sent> {
  const messageId = `<${refs.join('.')}@cliente.it>`;
  const transport = nodemailer.createTransport({
    host: '127.0.0.1', port, secure: false, ignoreTLS: true,
    connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000,
  });
  try {
    const info = await transport.sendMail({
      from: 'Mario Rossi <mario@cliente.it>', to: c.mailbox, subject: `Ordini ${refs.join(', ')}`, text: 'In allegato.', messageId,
      attachments: refs.map((r) => ({ filename: `${r}.json`, content: JSON.stringify(make(r)) })),
    });
    const acked = /^250\b/.test(info.response);
    return { channel: 'email', refs, acked, messageId, ...(acked ? {} : { why: info.response }) };
  } catch (err) {
    return { channel: 'email', refs, acked: false, messageId, why: (err as Error).message };
  } finally {
    transport.close();
  }
}
