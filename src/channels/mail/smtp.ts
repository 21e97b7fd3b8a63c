/**
 * The inbound SMTP server (smtp-server): the MX of the order mail domain. It accepts mail only for customers'
 * order mailboxes (refused at RCPT TO otherwise), announces and enforces the size limit, offers STARTTLS when a
 * certificate is configured, and answers `250` only once the message is committed to the store (acknowledged means
 * on disk, as in Postfix). A message for mailboxes of several customers is stored once per customer, so that each
 * customer's copy is judged as that customer's and no customer sees another's outcome.
 *
 * SMTP smuggling: smtp-server ends the data only at <CRLF>.<CRLF>; on top of that a message holding a bare LF or a
 * bare CR (line ends other than CRLF, which RFC 5321 2.3.8 forbids and which other servers may read as the end of
 * the data) is refused, so no sequence can mean one thing here and another to a server in front of us.
 */
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';
import { uuidv7 } from '../../domain/uuid7.ts';
import { INACTIVE_SMTP_TEXT, isActive } from '../../customers/active.ts';
import { ERROR_CATALOG } from '../../domain/errors.ts';
import type { Logger } from '../../log.ts';
import type { NewMailMessage } from '../../domain/store/mail.ts';
import type { Customer } from '../../domain/store/store.ts';
import type { MailChannelStore } from '../../domain/store/ports.ts';
import { noopMetrics, type Metrics } from '../../metrics/metrics.ts';
import { createConnectionGuard, plainAddress, type GuardLimits, type Ticket } from '../connection-guard.ts';
import { MAIL_LIMITS } from './limits.ts';
import { createRecipientThrottle, type RecipientLimits } from './recipients.ts';
import { checkShape } from './shape.ts';
import { readTlsFiles } from '../../http/tls.ts';

export interface SmtpDeps {
  store: MailChannelStore;
  log: Logger;
  host: string;
  port: number;
  maxMailBytes: number;
  tls?: { certFile: string; keyFile: string };
  /** Messages were stored (and are held by this instance): derive them. */
  onStored: (ids: string[]) => void;
  /** How long a stored message stays held by this instance unless renewed (INTAKE_CLAIM_LEASE_MS; the pipeline renews it). */
  claimMs: number;
  /** This instance's name on that claim, so it is freed as soon as the instance is gone. */
  holder: string;
  metrics?: Metrics;
  /** Test hook: connection slots (default from MAIL_LIMITS). */
  guardLimits?: GuardLimits;
  /** Test hook: unknown-recipient throttling (default from MAIL_LIMITS). */
  recipientLimits?: RecipientLimits;
}

export const SMTP_GUARD_LIMITS: GuardLimits = {
  total: MAIL_LIMITS.smtpClients, reservedForTrusted: MAIL_LIMITS.smtpReservedForTrusted,
  perAddress: MAIL_LIMITS.smtpWaitingPerAddress, waitingTimeoutMs: MAIL_LIMITS.smtpWaitingTimeoutMs,
};

const REFUSALS = {
  'per-address': '421 4.7.0 Too many connections from your address, try again later\r\n',
  full: '421 4.7.0 Too many connections, try again later\r\n',
  timeout: '421 4.4.2 No valid recipient named in time, closing connection\r\n',
  evicted: '421 4.7.0 Connection closed to make room for others, try again later\r\n',
} as const;

export interface RunningSmtp {
  port: number;
  close(): Promise<void>;
  /** Re-read the TLS certificate and key (SIGHUP) for STARTTLS from now on; throws, keeping the old ones, if unusable. */
  reloadTls?(): Promise<void>;
}

/** An error smtp-server answers with its code (the text carries the enhanced status code, RFC 3463). */
function smtpError(code: number, text: string): Error {
  return Object.assign(new Error(text), { responseCode: code });
}

/** Finds a bare LF or bare CR in data that arrives in chunks (a CR may end one chunk and its LF start the next). */
class LineEndCheck {
  #prev = -1;
  bad = false;

  feed(chunk: Buffer): void {
    if (this.bad) return;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if ((b === 0x0a && this.#prev !== 0x0d) || (this.#prev === 0x0d && b !== 0x0a)) {
        this.bad = true;
        return;
      }
      this.#prev = b;
    }
  }

  end(): void {
    if (this.#prev === 0x0d) this.bad = true;
  }
}

/** The Message-ID header of the raw message, if any (only the header section is read). */
export function headerMessageId(raw: Buffer): string | undefined {
  const end = raw.indexOf('\r\n\r\n');
  const head = raw.subarray(0, end < 0 ? Math.min(raw.length, 64 * 1024) : end).toString('latin1').replace(/\r\n[ \t]+/g, ' ');
  const m = /^message-id:\s*(<[^<>\s]{1,250}>)/im.exec(head);
  return m?.[1];
}

async function customersOf(store: MailChannelStore, session: SMTPServerSession): Promise<Map<string, { customer: Customer; addresses: string[] }>> {
  const byCustomer = new Map<string, { customer: Customer; addresses: string[] }>();
  for (const rcpt of session.envelope.rcptTo) {
    const c = await store.getCustomerByMailbox(rcpt.address);
    // Deactivated after its RCPT was accepted: the message is not stored for it (the sender was told at RCPT).
    if (!c || !isActive(c)) continue;
    const entry = byCustomer.get(c.id) ?? { customer: c, addresses: [] };
    entry.addresses.push(rcpt.address.toLowerCase());
    byCustomer.set(c.id, entry);
  }
  return byCustomer;
}

export async function startSmtpServer(deps: SmtpDeps): Promise<RunningSmtp> {
  const { store, log } = deps;
  const tls = deps.tls ? await readTlsFiles(deps.tls) : undefined;

  async function store250(session: SMTPServerSession, raw: Buffer): Promise<string> {
    const customers = await customersOf(store, session);
    if (customers.size === 0) throw smtpError(ERROR_CATALOG.NOT_FOUND.smtp, '5.1.1 No valid recipient: the order mailboxes were removed');
    const receivedAt = new Date().toISOString();
    const sha256 = createHash('sha256').update(raw).digest('hex');
    const mailFrom = session.envelope.mailFrom;
    const list: NewMailMessage[] = [...customers.values()].map(({ customer, addresses }) => ({
      id: uuidv7(), customerId: customer.id, source: 'smtp', envelopeFrom: mailFrom ? mailFrom.address : '', recipients: addresses,
      messageId: headerMessageId(raw), raw, sha256, remote: session.remoteAddress,
      ...(session.hostNameAppearsAs ? { helo: session.hostNameAppearsAs.slice(0, 255) } : {}), receivedAt, claimMs: deps.claimMs, claimBy: deps.holder,
    }));
    await store.saveMailMessages(list);
    const ids = list.map((m) => m.id);
    log.info({ mails: ids, customers: list.map((m) => m.customerId), bytes: raw.length, from: mailFrom ? mailFrom.address : '', remote: session.remoteAddress }, 'mail received');
    deps.onStored(ids);
    return ids.join(' ');
  }

  const guard = createConnectionGuard(deps.guardLimits ?? SMTP_GUARD_LIMITS, log);
  const throttle = createRecipientThrottle(deps.recipientLimits);
  // smtp-server's session names its peer but not its socket: tickets are found by address and port.
  const tickets = new Map<string, Ticket>();
  const peer = (address: string | undefined, port: number | undefined) => `${plainAddress(address)}|${port ?? 0}`;

  const server = new SMTPServer({
    banner: 'order intake',
    size: deps.maxMailBytes,
    authOptional: true,
    disabledCommands: tls ? ['AUTH'] : ['AUTH', 'STARTTLS'],
    ...(tls ?? {}),
    // The guard (connection-guard.ts) decides first; this is smtp-server's own backstop, never the tighter one.
    maxClients: (deps.guardLimits ?? SMTP_GUARD_LIMITS).total + 1,
    maxRecipients: MAIL_LIMITS.recipientsPerMessage,
    socketTimeout: MAIL_LIMITS.smtpSocketTimeoutMs,
    closeTimeout: 5_000,
    // A reverse lookup per connection only delays the greeting; the address is what the log needs.
    disableReverseLookup: true,
    logger: false,

    onClose(session) {
      throttle.forget(session.id);
    },

    onRcptTo(address, session, callback) {
      store.getCustomerByMailbox(address.address).then(
        (c) => {
          if (c && !isActive(c)) {
            // A real mailbox of a deactivated customer: refused with the reason, not counted as a guess.
            log.info({ customer: c.code, channel: 'smtp' }, 'recipient refused: customer deactivated');
            return callback(smtpError(ERROR_CATALOG.CUSTOMER_INACTIVE.smtp, INACTIVE_SMTP_TEXT));
          }
          if (c) {
            // A real order mailbox: this is a sender of orders, no longer a stranger holding a slot.
            tickets.get(peer(session.remoteAddress, session.remotePort))?.trust();
            return callback();
          }
          const remote = plainAddress(session.remoteAddress);
          const v = throttle.bad(session.id, remote);
          if (v.disconnect) log.warn({ remote, channel: 'smtp' }, 'too many unknown recipients: connection closed');
          const err = v.disconnect
            ? smtpError(421, '4.7.0 Too many unknown recipients, closing connection')
            : smtpError(ERROR_CATALOG.NOT_FOUND.smtp, `5.1.1 <${address.address}>: no such order mailbox`);
          if (v.delayMs > 0) setTimeout(() => callback(err), v.delayMs).unref();
          else callback(err);
        },
        (err: unknown) => {
          log.error({ err }, 'recipient lookup failed');
          callback(smtpError(ERROR_CATALOG.UNAVAILABLE.smtp, '4.3.0 Temporary failure, try again later'));
        },
      );
    },

    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      let size = 0;
      const lines = new LineEndCheck();
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        lines.feed(chunk);
        // Past the limit the rest is read and dropped (the client is still sending), never buffered.
        if (size <= deps.maxMailBytes) chunks.push(chunk);
      });
      stream.on('end', () => {
        lines.end();
        if (stream.sizeExceeded || size > deps.maxMailBytes) {
          callback(smtpError(ERROR_CATALOG.PAYLOAD_TOO_LARGE.smtp, `5.3.4 Message too big: the limit is ${deps.maxMailBytes} bytes`));
          return;
        }
        const raw = Buffer.concat(chunks, size);
        chunks.length = 0;
        const shape = checkShape(raw);
        if (shape) {
          log.warn({ remote: session.remoteAddress, channel: 'smtp', refusal: shape.text }, 'message refused at DATA: unreadable shape');
          callback(smtpError(shape.code, shape.text));
          return;
        }
        if (lines.bad) {
          callback(smtpError(ERROR_CATALOG.NOT_PARSEABLE.smtp, '5.6.0 Message refused: it holds a bare LF or CR; lines must end with CRLF (RFC 5321 2.3.8)'));
          return;
        }
        (deps.metrics ?? noopMetrics).timeAck('smtp', () => store250(session, raw)).then(
          (ids) => callback(null, `2.0.0 Stored as ${ids}`),
          (err: unknown) => {
            if (err instanceof Error && 'responseCode' in err) return callback(err);
            log.error({ err }, 'could not store a received message');
            callback(smtpError(ERROR_CATALOG.UNAVAILABLE.smtp, '4.3.0 The message could not be stored, try again later'));
          },
        );
      });
      stream.on('error', (err) => log.warn({ err }, 'SMTP data stream failed'));
    },
  });
  server.on('error', (err) => log.warn({ err }, 'SMTP connection error'));
  deps.metrics?.trackConnections('smtp', server.server);
  guard.gate(server.server, {
    refuse(socket, reason) {
      log.info({ remote: plainAddress(socket.remoteAddress), reason, channel: 'smtp' }, 'SMTP connection refused');
      socket.end(REFUSALS[reason]);
      // A client that never reads its refusal must not keep the descriptor.
      setTimeout(() => socket.destroy(), 2_000).unref();
    },
    onAdmit(socket, ticket) {
      const key = peer(socket.remoteAddress, socket.remotePort);
      tickets.set(key, ticket);
      socket.once('close', () => tickets.delete(key));
    },
  });

  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(deps.port, deps.host, () => {
      server.server.off('error', reject);
      resolve();
    });
  });
  const port = (server.server.address() as AddressInfo).port;
  const files = deps.tls;
  return {
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    ...(files ? {
      async reloadTls() {
        server.updateSecureContext(await readTlsFiles(files));
      },
    } : {}),
  };
}
