/**
 * The e-mail channel: the inbound SMTP server, the IMAP watchers, the pipeline from a stored message to its reply,
 * and the reply sender. main.ts calls startMailChannels; the SMTP server starts unless INTAKE_SMTP_PORT is 'off',
 * IMAP mailboxes are watched as they are configured (`order-intake customer imap set`), and replies go through
 * INTAKE_SMTP_RELAY (or stay in the store without one).
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Config } from '../../config.ts';
import type { Intake } from '../../intake/intake.ts';
import type { Logger } from '../../log.ts';
import type { Metrics } from '../../metrics/metrics.ts';
import type { MailChannelStore } from '../../domain/store/ports.ts';
import { startImapWatchers, type ImapWatchers } from './imap.ts';
import { startOutbox, type RetryPolicy } from './outbox.ts';
import { createPipeline } from './pipeline.ts';
import { correctionNotices } from './corrections.ts';
import { MAIL_LIMITS } from './limits.ts';
import type { RecipientLimits } from './recipients.ts';
import { startSmtpServer, type RunningSmtp } from './smtp.ts';
import { createAuthenticator, createDnsResolve, type Authenticator } from './trust.ts';

export interface MailChannelsDeps {
  config: Config;
  intake: Intake;
  store: MailChannelStore;
  log: Logger;
  /** Test hook: faster reply retries. */
  replyRetry?: RetryPolicy;
  /** This instance's name on its claims and leases (main.ts registers it as a live instance); default: a new one. */
  holder?: string;
  /** Acknowledgement latency and open connections of SMTP (GET /metrics). */
  metrics?: Metrics;
  /** Test hook: shorter unknown-recipient delays. */
  recipientLimits?: RecipientLimits;
  /** Test hook: another sender check than the DNS one of the configuration. */
  authenticator?: Authenticator;
}

export interface MailChannels {
  ports: { smtp?: number };
  /** Resolves when no message is being derived (tests). */
  idle(): Promise<void>;
  /** Something was queued in the reply outbox by another part (a status notification): send it now. */
  kickReplies(): void;
  /** Re-read the TLS certificate SMTP offers with STARTTLS; how many servers did (0 or 1). Throws if unusable. */
  reloadTls(): Promise<number>;
  close(): Promise<void>;
}

export async function startMailChannels(deps: MailChannelsDeps): Promise<MailChannels> {
  const { config, store, intake } = deps;
  const log = deps.log.child({ channel: 'mail' });
  // Names this instance in the claims and leases it takes (messages, replies, reply sender, IMAP mailboxes).
  const holder = deps.holder ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const outbox = startOutbox({ store, log, relay: config.smtpRelay, holder, retry: deps.replyRetry });
  // Renewed while the message waits and is derived, like a submission's claim: no long fixed hold.
  const claimMs = config.claimLeaseMs;
  const pipeline = createPipeline({
    store, intake, log, mailDomain: config.mailDomain, timeZone: config.timeZone, maxFileBytes: config.maxFileBytes,
    onReplyQueued: () => outbox.kick(), claimMs, holder, metrics: deps.metrics, ...(config.peppolId ? { peppolId: config.peppolId } : {}),
    authenticator: deps.authenticator ?? createAuthenticator({
      authservId: config.mailAuthservId, resolve: createDnsResolve(config.dnsServers, config.dnsTimeoutMs),
    }),
  });
  const onStored = (ids: string[]) => ids.forEach((id) => pipeline.start(id));
  const notices = correctionNotices({ store, log, mailDomain: config.mailDomain, timeZone: config.timeZone, onQueued: () => outbox.kick() });
  let closing = false;
  intake.onProcessed((s) => (closing ? undefined : notices.processed(s)));

  let smtp: RunningSmtp | undefined;
  let imap: ImapWatchers | undefined;
  let sweeping: Promise<unknown> = Promise.resolve();
  const sweeper: { timer?: NodeJS.Timeout } = {};
  const close = async () => {
    closing = true;
    clearInterval(sweeper.timer);
    await smtp?.close();
    await imap?.close();
    // Messages not yet started are handed back at once, for another instance to derive; those under way finish.
    await pipeline.stop();
    await sweeping;
    await outbox.close();
  };
  const ports: MailChannels['ports'] = {};
  try {
    if (config.smtpPort !== 'off') {
      smtp = await startSmtpServer({
        store, log, host: config.host, port: config.smtpPort, maxMailBytes: config.maxMailBytes, onStored, claimMs, holder, metrics: deps.metrics,
        recipientLimits: deps.recipientLimits,
        tls: config.tlsCertFile && config.tlsKeyFile ? { certFile: config.tlsCertFile, keyFile: config.tlsKeyFile } : undefined,
      });
      ports.smtp = smtp.port;
      // The service's logger, not the mail channel's: its `channel` binding would have come out twice in the line.
      deps.log.info({ channel: 'smtp', port: smtp.port, domain: config.mailDomain }, `SMTP listening on port ${smtp.port} for @${config.mailDomain}`);
    }
    imap = startImapWatchers({
      store, log, secretKey: config.secretKey, maxMailBytes: config.maxMailBytes, pollSeconds: config.imapPollSeconds, holder, onStored, claimMs,
    });
  } catch (err) {
    await close();
    throw err;
  }

  // Correction notices a process that died did not queue (corrections.ts): looked for at start and after a death.
  const catchUp = () => notices.catchUp().then(
    (n) => n > 0 && log.info({ queued: n }, 'queued correction notices left unqueued'),
    (err: unknown) => log.error({ err }, 'correction notice catch-up failed'),
  );
  /** Messages held because DNS failed are checked again once INTAKE_MAIL_DNS_RETRY_SECONDS have passed. */
  const retryDnsHolds = async () => {
    const before = new Date(Date.now() - config.mailDnsRetrySeconds * 1000).toISOString();
    for (const id of await store.heldForRetry('dns', before, MAIL_LIMITS.recoveryBatch)) {
      if (await store.decideMailHold(id, 'retried', 'dns-retry')) log.info({ mail: id }, 'held mail message checked again (DNS failed before)');
    }
  };
  // Messages stored and not finished before the last stop (or crash) are finished now, and then regularly.
  let started = false;
  const sweep = () => {
    // The sweep first frees what instances found gone held, so their messages are taken over in this round.
    sweeping = sweeping.then(async () => {
      const freed = await store.reapInstances();
      if (freed.instances.length > 0) log.warn({ ...freed }, 'instances gone (process ended without a stop): their claims are free and their work is taken over now');
      if (!started || freed.instances.length > 0) await catchUp();
      started = true;
      await retryDnsHolds();
      return pipeline.sweep();
    }).then(
      (n) => n > 0 && log.info({ finished: n }, 'finished mail messages left unprocessed'),
      (err: unknown) => log.error({ err }, 'mail sweep failed'),
    );
  };
  sweep();
  sweeper.timer = setInterval(sweep, config.sweepIntervalMs);
  return {
    ports,
    kickReplies: () => outbox.kick(),
    async reloadTls() {
      if (!smtp?.reloadTls) return 0;
      await smtp.reloadTls();
      return 1;
    },
    async idle() {
      await sweeping;
      await pipeline.idle();
    },
    close,
  };
}
