/**
 * Shared set-up of the e-mail tests: the real service (store, intake) on a throw-away data directory, the e-mail
 * channel started on it as main.ts starts it (SMTP on an ephemeral port), a real SMTP client (nodemailer), and a
 * test SMTP sink (an smtp-server instance) standing in for the relay that delivers the replies.
 */
import type { Metrics } from '../../../src/metrics/metrics.ts';
import { startDnsServer, type DnsFixture } from '../../helpers/dns-server.ts';
import { rmSync } from 'node:fs';
import { connect, createServer, type AddressInfo } from 'node:net';
import nodemailer from 'nodemailer';
import type { Options } from 'nodemailer/lib/mailer';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { startMailChannels, type MailChannels } from '../../../src/channels/mail/index.ts';
import type { RetryPolicy } from '../../../src/channels/mail/outbox.ts';
import type { RecipientLimits } from '../../../src/channels/mail/recipients.ts';
import { loadConfig, type Config } from '../../../src/config.ts';
import { provisionCustomer } from '../../../src/customers/provision.ts';
import { createLogger } from '../../../src/log.ts';
import { startService } from '../../../src/main.ts';
import type { MailMessage } from '../../../src/domain/store/mail.ts';
import { TEST_ARTICLES, tempDir, waitFor, type TestService } from '../../helpers/service.ts';
import { withPostgresKey } from '../../helpers/secret-key.ts';

export interface Captured {
  mailFrom: string;
  rcptTo: string[];
  raw: Buffer;
  parsed: ParsedMail;
}

/** An SMTP server that keeps every message it is given: the relay, as far as the service can tell. */
export interface Sink {
  port: number;
  url: string;
  messages: Captured[];
  close(): Promise<void>;
}

export async function startSink(port = 0, opts: { refuse?: () => boolean } = {}): Promise<Sink> {
  const messages: Captured[] = [];
  const server = new SMTPServer({
    authOptional: true, disabledCommands: ['AUTH', 'STARTTLS'], logger: false, disableReverseLookup: true,
    onRcptTo(address, _session, callback) {
      if (opts.refuse?.()) return callback(Object.assign(new Error(`5.1.1 <${address.address}>: user unknown`), { responseCode: 550 }));
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        simpleParser(raw).then((parsed) => {
          messages.push({
            mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '(none)',
            rcptTo: session.envelope.rcptTo.map((r) => r.address), raw, parsed,
          });
          callback();
        }, callback);
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const bound = (server.server.address() as AddressInfo).port;
  return {
    port: bound, url: `smtp://127.0.0.1:${bound}`, messages,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A port nothing listens on (yet): a relay that is down. */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', () => resolve()));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

export interface MailHarness {
  t: TestService;
  config: Config;
  channels: MailChannels;
  smtpPort: number;
  /** The fixture DNS server the service checks senders against: tests add SPF, DKIM and DMARC records to it. */
  dns: DnsFixture;
  /** Send a message to the service with nodemailer (plain SMTP on the loopback). */
  send(mail: Options): Promise<{ response: string; accepted: unknown[]; rejected: unknown[] }>;
  /** Wait until the customer has a finished message with that subject; returns it. */
  finished(code: string, subject: string, timeoutMs?: number): Promise<MailMessage>;
  /** Stop the channel and the service, keeping the data directory (a restart follows). */
  stop(): Promise<void>;
  /** Stop and delete the data directory. */
  close(): Promise<void>;
}

export interface MailOptions {
  /** INTAKE_* settings for the channel (the relay, limits, TLS, …). */
  env?: Record<string, string>;
  retry?: RetryPolicy;
  dataDir?: string;
  /** PostgreSQL instead of the embedded SQLite (a URL with its own search_path, see test/store/pg-schema.ts). */
  databaseUrl?: string;
  /** Unknown-recipient throttling (shorter delays than the defaults, so a test does not wait half a minute). */
  recipientLimits?: RecipientLimits;
  /** The fixture DNS server senders are checked against (default: a new, empty one, closed with the harness). */
  dns?: DnsFixture;
  /** Counters of the mail channel (held messages), to read back. */
  metrics?: Metrics;
}

export const FAST_RETRY: RetryPolicy = { firstMs: 100, maxMs: 400, giveUpMs: 60_000, idleMs: 200 };

/**
 * The service without HTTP (so it prints no demo banner) and without touching process.stdout: the test runner
 * reports results on stdout, and a test that silenced it while starting a service would swallow the report of the
 * test before it.
 */
async function startQuietService(dataDir: string, databaseUrl?: string): Promise<TestService> {
  const config = loadConfig(withPostgresKey({
    INTAKE_DATA_DIR: dataDir, INTAKE_HOST: '127.0.0.1', INTAKE_HTTP_PORT: 'off', INTAKE_SFTP_PORT: 'off', INTAKE_FTP_PORT: 'off',
    INTAKE_SMTP_PORT: 'off', INTAKE_LOG_LEVEL: 'silent', INTAKE_MAIL_DOMAIN: 'ordini.test', INTAKE_DATABASE_URL: databaseUrl,
  }));
  const service = await startService(config, createLogger('silent'));
  await service.store.upsertArticles(TEST_ARTICLES);
  return {
    service, config, dataDir, url: '',
    async customer(code) {
      const c = await provisionCustomer(service.store, { code, name: `Cliente ${code}` }, config.mailDomain);
      return { code, apiKey: c.apiKey, mailbox: c.mailbox, ftpUser: c.ftpUser, ftpPassword: c.ftpPassword };
    },
    async close() {
      await service.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function startMail(opts: MailOptions = {}): Promise<MailHarness> {
  const dataDir = opts.dataDir ?? tempDir('intake-mail-');
  // Senders are checked against this fixture DNS server (no test depends on real DNS); empty unless a test adds records.
  const dns = opts.dns ?? await startDnsServer();
  const ownDns = opts.dns === undefined;
  const t = await startQuietService(dataDir, opts.databaseUrl);
  const config = loadConfig({
    INTAKE_DATA_DIR: dataDir, INTAKE_HOST: '127.0.0.1', INTAKE_SMTP_PORT: '0', INTAKE_MAIL_DOMAIN: 'ordini.test',
    INTAKE_LOG_LEVEL: 'silent', INTAKE_IMAP_POLL_SECONDS: '1', INTAKE_DATABASE_URL: opts.databaseUrl, INTAKE_DNS_SERVERS: dns.address,
    INTAKE_DNS_TIMEOUT_MS: '300', INTAKE_MAIL_AUTHSERV_ID: 'intake.test', ...opts.env,
  });
  let channels: MailChannels;
  try {
    channels = await startMailChannels({ config, intake: t.service.intake, store: t.service.store, log: createLogger('silent'), replyRetry: opts.retry, recipientLimits: opts.recipientLimits, metrics: opts.metrics });
  } catch (e) {
    await t.close();
    throw e;
  }
  const smtpPort = channels.ports.smtp;
  if (smtpPort === undefined) throw new Error('the SMTP server did not start');
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true });
  const closeDns = () => (ownDns ? dns.close() : Promise.resolve());
  return {
    t, config, channels, smtpPort, dns,
    send: (mail) => transport.sendMail({ from: 'Mario Rossi <mario@cliente.it>', ...mail }),
    async finished(code, subject, timeoutMs = 15_000) {
      const customer = await t.service.store.getCustomerByCode(code);
      if (!customer) throw new Error(`no customer ${code}`);
      return waitFor(async () => {
        for (const s of await t.service.store.listMailMessages({ customerId: customer.id, state: 'done' })) {
          const m = await t.service.store.getMailMessage(s.id);
          if (m && (await simpleParser(m.raw)).subject === subject) return m;
        }
        return undefined;
      }, timeoutMs, `finished message "${subject}" for ${code}`);
    },
    async stop() {
      transport.close();
      await channels.close();
      await t.service.stop();
      await closeDns();
    },
    async close() {
      transport.close();
      await channels.close();
      await t.close();
      await closeDns();
    },
  };
}

/** Wait until the sink holds a message that satisfies `match`. */
export function received(sink: Sink, match: (m: Captured) => boolean, timeoutMs = 15_000, what = 'a reply'): Promise<Captured> {
  return waitFor(() => sink.messages.find(match), timeoutMs, what);
}

/**
 * A raw SMTP conversation: each step is sent as is, then the next server reply is read; a function step is run
 * between two commands (to change something mid-conversation). For what real clients never send (bare LF,
 * smuggled commands, a client that ignores SIZE).
 */
export async function converse(port: number, steps: (string | Buffer | (() => Promise<void>))[], timeoutMs = 10_000): Promise<string[]> {
  const socket = connect(port, '127.0.0.1');
  let buffer = '';
  const replies: string[] = [];
  let waiting: (() => void) | undefined;
  socket.on('data', (d: Buffer) => {
    buffer += d.toString('latin1');
    waiting?.();
  });
  const timer = setTimeout(() => socket.destroy(new Error('SMTP conversation timed out')), timeoutMs);
  /** One complete reply (the last line of a multi-line reply has a space after the code). */
  const next = () => new Promise<string>((resolve, reject) => {
    const check = () => {
      const m = /^(\d{3}) .*\r\n/m.exec(buffer);
      if (!m) return;
      const end = m.index + m[0].length;
      resolve(buffer.slice(0, end));
      buffer = buffer.slice(end);
      waiting = undefined;
    };
    waiting = check;
    socket.once('error', reject);
    check();
  });
  try {
    replies.push(await next());
    for (const step of steps) {
      if (typeof step === 'function') {
        await step();
        continue;
      }
      socket.write(step);
      replies.push(await next());
    }
    return replies;
  } finally {
    clearTimeout(timer);
    socket.destroy();
  }
}
