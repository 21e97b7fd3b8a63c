/**
 * Settings come from environment variables only, are validated once here, and the frozen result is passed
 * down by the composition root. No other module reads process.env. Every key is documented below; the operators'
 * settings page (docs/operators/settings.md) is generated from these comments by `npm run docs`.
 */
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import path from 'node:path';
/**
 * A setting that cannot be used: the service refuses to start and says which and why. Not an IntakeError: no
 * customer ever sees it, and it has no protocol status.
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}
import { parseCidr } from './connectors/ip-allow.ts';
import { parsePeppolId } from './customers/peppol-ids.ts';

/** A listening port: a number (0 = ephemeral, the bound port is logged) or 'off' to disable the channel. */
export type PortSetting = number | 'off';

export interface Config {
  /** INTAKE_DATA_DIR: SQLite database, SFTP host key, generated files. Default ./data */
  readonly dataDir: string;
  /** INTAKE_DATABASE_URL: postgres://… selects PostgreSQL; unset means SQLite in dataDir. */
  readonly databaseUrl?: string;
  /**
   * INTAKE_DATABASE_POOL: connections one instance opens to PostgreSQL at most, besides its one for LISTEN. Default
   * 10: registrations of requests in flight share a statement, so a few connections carry the load. Registrations
   * hold at most all but a quarter of it (rounded down, at least one kept back), so a long lock on orders still leaves connections to
   * store what arrives. N instances need N × (this + 1) of the server's max_connections (100 by default), with room
   * for psql and backups.
   */
  readonly databasePool: number;
  /** INTAKE_HOST: address every channel binds to. Default 0.0.0.0 */
  readonly host: string;
  /** INTAKE_HTTP_PORT: REST, SOAP, docs. Default 8080 */
  readonly httpPort: PortSetting;
  /** INTAKE_SFTP_PORT: SFTP channel (SSH). Default 2222 */
  readonly sftpPort: PortSetting;
  /** INTAKE_FTP_PORT: FTP channel (explicit TLS when a certificate is set). Default 2121 */
  readonly ftpPort: PortSetting;
  /** INTAKE_SMTP_PORT: the embedded SMTP server receiving order e-mails. Default 2525 */
  readonly smtpPort: PortSetting;
  /** INTAKE_MAIL_DOMAIN: domain of the customers' order mailboxes. Default ordini.localhost */
  readonly mailDomain: string;
  /** INTAKE_SMTP_RELAY: smtp://host:port for outgoing replies; unset keeps replies in the store. */
  readonly smtpRelay?: string;
  /**
   * INTAKE_MAIL_AUTHSERV_ID: the name this service signs its Authentication-Results headers with (RFC 8601), the
   * results of its own SPF, DKIM and DMARC checks on received mail. Default: the host name.
   */
  readonly mailAuthservId: string;
  /**
   * INTAKE_DNS_SERVERS: DNS servers for the SPF, DKIM and DMARC lookups of received mail, comma-separated `ip` or
   * `ip:port` (`[ipv6]:port`). Unset: the system resolver's.
   */
  readonly dnsServers?: readonly string[];
  /** INTAKE_DNS_TIMEOUT_MS: time limit of one DNS lookup (each of its two tries). Default 3000 */
  readonly dnsTimeoutMs: number;
  /**
   * INTAKE_MAIL_DNS_RETRY_SECONDS: a message whose sender could not be checked because DNS failed is held and
   * checked again after this long. Default 300
   */
  readonly mailDnsRetrySeconds: number;
  /** INTAKE_TIMEZONE: IANA zone whose calendar year numbers orders. Default Europe/Rome */
  readonly timeZone: string;
  /** INTAKE_PUBLIC_URL: base URL customers use (SOAP namespace, WSDL address, printed examples). */
  readonly publicUrl?: string;
  /**
   * INTAKE_PEPPOL_ID: our Peppol participant identifier, scheme:value (`0211:IT01234567890`). A UBL document whose
   * seller party names other identifiers is refused. Unset: the seller is not checked.
   */
  readonly peppolId?: { scheme: string; identifier: string };
  /**
   * INTAKE_PEPPOL_UNITS: UN/ECE unit codes of UBL order lines mapped onto our units, `CODE=UNIT` separated by commas
   * (`C62=PZ,XBX=SC`). Codes not listed are kept as written (docs/operators/peppol.md).
   */
  readonly peppolUnits: ReadonlyMap<string, string>;
  /** INTAKE_LOG_LEVEL: pino level. Default info */
  readonly logLevel: string;
  /**
   * INTAKE_MAX_BODY_BYTES: largest REST/SOAP body. Default 5 MiB: one order per call, and a 10,000-line order
   * in JSON is under 2 MiB, so anything larger is a mistake or an attack and is refused before it is buffered.
   */
  readonly maxBodyBytes: number;
  /**
   * INTAKE_MAX_FILE_BYTES: largest order file by FTP/SFTP/e-mail. Default 100 MiB: a 1,000,000-line CSV is
   * about 60 MiB; the bound keeps one upload from filling the disk.
   */
  readonly maxFileBytes: number;
  /**
   * INTAKE_FTP_PASV_RANGE: ports for FTP passive data connections, as "min-max". Default 30000-30100: a firewall or
   * NAT in front of the service must forward exactly this range, so it is fixed and small; each port is held only
   * for one transfer.
   */
  readonly ftpPasvRange: { readonly min: number; readonly max: number };
  /**
   * INTAKE_FTP_PUBLIC_HOST: the IPv4 address FTP clients are told to open passive data connections to (the public
   * address behind NAT). Unset: the address the client reached the service at.
   */
  readonly ftpPublicHost?: string;
  /** INTAKE_TLS_CERT: PEM certificate (chain) file; with INTAKE_TLS_KEY, FTP offers explicit TLS (AUTH TLS). */
  readonly tlsCertFile?: string;
  /** INTAKE_TLS_KEY: PEM private key file matching INTAKE_TLS_CERT. */
  readonly tlsKeyFile?: string;
  /**
   * INTAKE_MAX_MAIL_BYTES: largest e-mail message the SMTP server accepts (announced as SIZE) and the IMAP watcher
   * downloads. Default 25 MiB: what the large providers let their users send, so a customer's message is never
   * refused here that their own provider accepted; the whole message is held in memory while it is stored and read.
   */
  readonly maxMailBytes: number;
  /**
   * INTAKE_SECRET_KEY: 32 random bytes, as 64 hex digits or base64, that seal (AES-256-GCM) the webhook signing
   * secrets and the IMAP mailbox passwords kept in the database. Unset with SQLite: generated on first need into
   * secret.key in the data directory (mode 0600), which must be backed up with the database. Required with
   * PostgreSQL, the same on every instance. When set, a secret.key file is not used. Losing the key means new
   * webhook secrets and entering the IMAP passwords again.
   */
  readonly secretKey?: string;
  /**
   * INTAKE_IMAP_POLL_SECONDS: how often an IMAP mailbox is checked when its server cannot push new mail (no IDLE)
   * and how often the list of IMAP mailboxes is re-read. Default 60: orders are not chat, and providers throttle
   * clients that poll much faster.
   */
  readonly imapPollSeconds: number;
  /**
   * INTAKE_CLAIM_LEASE_MS: how long an instance's claim on a submission or an e-mail message lasts unless renewed (it
   * renews every third of it). The work of an instance that died is taken over at the next sweep, whatever this is (its
   * claims die with its database session, see docs/operators/crash-recovery.md); the lease only bounds the wait for
   * the work of an instance that hangs with its session open. Default 30000. At least 1000: a shorter lease is lost to
   * an ordinary pause of a busy process (garbage collection, a large order judged), and the same work would then be
   * judged twice (its outcome is still recorded once: the first recorded stands).
   */
  readonly claimLeaseMs: number;
  /**
   * INTAKE_SWEEP_INTERVAL_MS: how often an instance looks for received work no one holds (left by a crash, by an
   * instance that is gone, or by one whose claims lapsed), for submissions and e-mail messages alike, and so the
   * longest wait before work left by an instance that died is taken over. Default 5000. At least 100: each look
   * is a query per instance, and looking more often only loads the database.
   */
  readonly sweepIntervalMs: number;
  /**
   * INTAKE_FEED_POLL_MS: while a long poll of GET /api/v1/eventi waits, how often it reads the store again for
   * events it was not told about (committed by another instance or process, or not yet readable on PostgreSQL:
   * docs/development/outbox.md). Local commits wake it at once. Default 250, at least 50: each look is one indexed
   * query per waiting request, and the feed's lag target is 1 s.
   */
  readonly feedPollMs: number;
  /**
   * INTAKE_WEBHOOK_TIMEOUT_MS: longest webhook exchange, from connecting to the end of the answer. Default 10000: a
   * receiver should acknowledge and work later; one that takes longer is treated as failed and tried again, so a
   * stuck receiver cannot hold the dispatcher's slots. From 100 to 60000.
   */
  readonly webhookTimeoutMs: number;
  /**
   * INTAKE_HANDOFF_LEASE_MS: how long an instance holds a webhook or export delivery it is making. After a crash
   * (kill -9) the delivery is made again once this has passed. Default 60000. Must exceed INTAKE_WEBHOOK_TIMEOUT_MS
   * by at least a second, so an attempt that is merely slow is never made twice at once.
   */
  readonly handoffLeaseMs: number;
  /**
   * INTAKE_HANDOFF_POLL_MS: how often an instance looks for new order events and due deliveries. Default 200: the
   * time from an order's registration to its webhook is about this; each look is a few cheap queries. From 10 to
   * 60000.
   */
  readonly handoffPollMs: number;
  /**
   * INTAKE_HANDOFF_RETRY: back-off of failed deliveries as "first,max,giveUp" in milliseconds. Default
   * 5000,3600000,86400000: the first retry after 5 s, doubling up to an hour between attempts (±20 % jitter),
   * webhooks given up (marked failed, kept) after 24 h. Exports never give up. Shorter values are for tests.
   */
  readonly handoffRetry: { readonly firstMs: number; readonly maxMs: number; readonly giveUpMs: number };
  /**
   * INTAKE_FTP_REQUIRE_TLS: `true` refuses USER and PASS (reply 530) on an FTP connection that has not done AUTH TLS,
   * so no password crosses the network in clear. Default false: many customers' scripts speak plain FTP. Needs
   * INTAKE_TLS_CERT/INTAKE_TLS_KEY. SFTP is always encrypted and is not affected.
   */
  readonly ftpRequireTls: boolean;
  /**
   * INTAKE_LOG_FORMAT: `json` (one object per line, for log collectors), `pretty` (human lines) or `auto`, the
   * default: pretty when stdout is a terminal, JSON otherwise (systemd, Docker, a pipe).
   */
  readonly logFormat: 'auto' | 'json' | 'pretty';
  /**
   * INTAKE_HTTP_TLS: "on" (default when INTAKE_TLS_CERT/INTAKE_TLS_KEY are set) serves the HTTP port over TLS (HTTPS)
   * with that certificate, re-read on SIGHUP; "off" keeps it in clear text, for a reverse proxy that terminates TLS
   * while FTP/SMTP still use the certificate.
   */
  readonly httpTls: boolean;
  /**
   * INTAKE_HTTP_REDIRECT_PORT: with HTTPS on, a second, clear-text port that sends GET/HEAD to the same path over
   * HTTPS (308) and refuses every other method (403). Default off.
   */
  readonly httpRedirectPort: PortSetting;
  /**
   * INTAKE_TRUST_PROXY: comma-separated addresses or CIDR blocks of the reverse proxies in front of the HTTP port
   * (or loopback / linklocal / uniquelocal). Only a request whose TCP peer is one of them has its X-Forwarded-For /
   * X-Forwarded-Proto / X-Forwarded-Host believed; the client address then comes from X-Forwarded-For (connector
   * allow lists, logs). Unset: no header is believed.
   */
  readonly trustProxy: readonly string[];
  /**
   * INTAKE_METRICS_TOKEN: bearer token that GET /metrics requires. Without it and without INTAKE_METRICS_PORT,
   * /metrics is not served at all: metrics show traffic volumes and are not for everyone who can reach the port.
   */
  readonly metricsToken?: string;
  /** INTAKE_METRICS_PORT: a separate port serving only GET /metrics (the token applies there too when set). Default off. */
  readonly metricsPort: PortSetting;
  /** INTAKE_METRICS_HOST: address the metrics port binds to. Default INTAKE_HOST. */
  readonly metricsHost: string;
  /**
   * INTAKE_UPLOAD_MEMORY_BYTES: memory that uploaded files being stored and judged may take at once, across every
   * customer (FTP, SFTP and the portal). While a file is stored and judged it is counted at what it may take (its format's memoryCost,
   * src/intake/formats/): a CSV file, read in pieces, at 2 MiB + twice its size + 2 KiB per order it may
   * hold (a 50 MiB file of 100,000 orders: ~300 MiB); a JSON or XML file, decoded whole, at 8 times its size. Past
   * the budget further files wait for others to finish, then get a temporary refusal. Default 512 MiB: one large
   * file, or a stream of small ones, at a time (a larger file runs alone), which a machine with 2 GiB of RAM holds
   * beside the rest of the service. Raise it on a larger machine that takes many large files.
   */
  readonly uploadMemoryBytes: number;
  /**
   * INTAKE_OUTBOX: `off` stops writing order events (the outbox) — for `npm run bench` only, which measures the
   * outbox's cost side by side. Never in service: the feed, webhooks and exports then miss every order registered
   * meanwhile, for good. Default on.
   */
  readonly outbox: boolean;
  /**
   * INTAKE_EVENT_RETENTION_DAYS: order events (the feed GET /api/v1/eventi, webhooks, exports) older than this many
   * days are deleted by the hand-off's sweep, in batches, except an event a webhook or export has neither delivered
   * nor given up on, and any event a subscriber (even a disabled one) has not been given yet. A feed reader whose
   * cursor is older than what is kept gets 410 and must resync. Default 90, from 1 to 3650. Orders themselves are
   * never deleted by this.
   */
  readonly eventRetentionDays: number;
  /**
   * INTAKE_BACKUP_DIR: a folder where `serve` writes a backup of the embedded SQLite database (and a copy of the
   * secret key file beside it) every INTAKE_BACKUP_EVERY, keeping the last INTAKE_BACKUP_KEEP. Unset: no scheduled
   * backups (`order-intake db backup` still works). Put it on another disk than the data directory, or copy it off
   * the machine: a backup on the disk it protects is lost with it. Not with PostgreSQL (use pg_dump).
   */
  readonly backupDir?: string;
  /**
   * INTAKE_BACKUP_EVERY: time between scheduled backups, as a number and a unit: `30m`, `6h`, `1d`. Default 6h. From
   * 1m to 30d. The schedule follows the newest backup in the folder, so a restart does not take an extra one.
   */
  readonly backupEveryMs: number;
  /** INTAKE_BACKUP_KEEP: how many scheduled backups are kept; older ones are deleted. Default 7, from 1 to 1000. */
  readonly backupKeep: number;
}

type Env = Record<string, string | undefined>;

function onOff(env: Env, key: string, fallback: boolean): boolean {
  const v = env[key]?.trim().toLowerCase();
  if (v === undefined || v === '') return fallback;
  if (v === 'on') return true;
  if (v === 'off') return false;
  throw new ConfigError(`${key} must be on or off, not "${env[key]}"`);
}

function port(env: Env, key: string, fallback: number): PortSetting {
  const v = env[key]?.trim();
  if (v === undefined || v === '') return fallback;
  if (v.toLowerCase() === 'off') return 'off';
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new ConfigError(`${key} must be a port number (0-65535) or "off", got "${v}"`);
  return n;
}

function bytes(env: Env, key: string, fallback: number): number {
  const v = env[key]?.trim();
  if (!v) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new ConfigError(`${key} must be a positive whole number of bytes, got "${v}"`);
  return n;
}

function portRange(env: Env, key: string, fallback: { min: number; max: number }): { min: number; max: number } {
  const v = env[key]?.trim();
  if (!v) return fallback;
  const m = /^(\d{1,5})\s*-\s*(\d{1,5})$/.exec(v);
  const min = Number(m?.[1]);
  const max = Number(m?.[2]);
  // Below 1024 the service would need root, and a reversed range is a typo.
  if (!m || min < 1024 || max > 65535 || min > max) {
    throw new ConfigError(`${key} must look like 30000-30100 (ports 1024-65535, low to high), got "${v}"`);
  }
  return Object.freeze({ min, max });
}

/** INTAKE_DNS_SERVERS: `ip`, `ip:port` or `[ipv6]:port`, as node:dns's setServers takes them. */
function dnsServers(v: string | undefined): readonly string[] | undefined {
  const list = v?.split(',').map((s) => s.trim()).filter(Boolean) ?? [];
  if (list.length === 0) return undefined;
  for (const s of list) {
    const m = /^(?:\[([0-9a-fA-F:.]+)\]|(\d{1,3}(?:\.\d{1,3}){3})|([0-9a-fA-F:]*:[0-9a-fA-F:.]*))(?::(\d{1,5}))?$/.exec(s);
    const ip = m && (m[1] ?? m[2] ?? m[3]);
    const okIp = typeof ip === 'string' && isIP(ip) !== 0;
    // A bare IPv6 address cannot carry a port without brackets.
    const okPort = m?.[4] === undefined || (Number(m[4]) >= 1 && Number(m[4]) <= 65535 && m[3] === undefined);
    if (!okIp || !okPort) throw new ConfigError(`INTAKE_DNS_SERVERS must list ip or ip:port ([ipv6]:port), comma-separated; "${s}" is not one`);
  }
  return Object.freeze(list);
}

function authservId(v: string | undefined): string {
  const id = v?.trim();
  // The host name is only a default: whatever it holds, the service starts with a usable token made of it.
  if (!id) return hostname().replace(/[^A-Za-z0-9._-]/g, '-').replace(/^[^A-Za-z0-9]+/, '').slice(0, 255) || 'localhost';
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$/.test(id)) throw new ConfigError(`INTAKE_MAIL_AUTHSERV_ID must be a host name, got "${id}"`);
  return id;
}

function timeZone(v: string): string {
  try {
    new Intl.DateTimeFormat('en', { timeZone: v });
  } catch {
    throw new ConfigError(`INTAKE_TIMEZONE "${v}" is not an IANA time zone`);
  }
  return v;
}

export function loadConfig(env: Env = process.env, cwd = process.cwd()): Config {
  const databaseUrl = env.INTAKE_DATABASE_URL?.trim() || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('INTAKE_DATABASE_URL must start with postgres:// (unset it to use the embedded SQLite)');
  }
  const smtpRelay = env.INTAKE_SMTP_RELAY?.trim() || undefined;
  if (smtpRelay && !/^smtps?:\/\//.test(smtpRelay)) {
    throw new ConfigError('INTAKE_SMTP_RELAY must look like smtp://host:port');
  }
  const tlsCert = env.INTAKE_TLS_CERT?.trim() || undefined;
  const tlsKey = env.INTAKE_TLS_KEY?.trim() || undefined;
  if ((tlsCert === undefined) !== (tlsKey === undefined)) throw new ConfigError('INTAKE_TLS_CERT and INTAKE_TLS_KEY must be set together');
  const ftpPublicHost = env.INTAKE_FTP_PUBLIC_HOST?.trim() || undefined;
  // The FTP PASV reply can only carry an IPv4 address (IPv6 clients use EPSV, which carries none).
  if (ftpPublicHost && !/^\d{1,3}(\.\d{1,3}){3}$/.test(ftpPublicHost)) throw new ConfigError(`INTAKE_FTP_PUBLIC_HOST must be an IPv4 address, got "${ftpPublicHost}"`);
  const publicUrl = env.INTAKE_PUBLIC_URL?.trim().replace(/\/+$/, '') || undefined;
  if (publicUrl && !/^https?:\/\//.test(publicUrl)) throw new ConfigError('INTAKE_PUBLIC_URL must start with http:// or https://');
  return Object.freeze({
    dataDir: path.resolve(cwd, env.INTAKE_DATA_DIR?.trim() || './data'),
    databaseUrl,
    databasePool: wholeNumber(env, 'INTAKE_DATABASE_POOL', 'connections', 10, 2, 500),
    host: env.INTAKE_HOST?.trim() || '0.0.0.0',
    httpPort: port(env, 'INTAKE_HTTP_PORT', 8080),
    sftpPort: port(env, 'INTAKE_SFTP_PORT', 2222),
    ftpPort: port(env, 'INTAKE_FTP_PORT', 2121),
    smtpPort: port(env, 'INTAKE_SMTP_PORT', 2525),
    mailDomain: (env.INTAKE_MAIL_DOMAIN?.trim() || 'ordini.localhost').toLowerCase(),
    smtpRelay,
    mailAuthservId: authservId(env.INTAKE_MAIL_AUTHSERV_ID),
    dnsServers: dnsServers(env.INTAKE_DNS_SERVERS),
    dnsTimeoutMs: millis(env, 'INTAKE_DNS_TIMEOUT_MS', 3000, 100, 60_000),
    mailDnsRetrySeconds: seconds(env, 'INTAKE_MAIL_DNS_RETRY_SECONDS', 300, 1, 24 * 3600),
    timeZone: timeZone(env.INTAKE_TIMEZONE?.trim() || 'Europe/Rome'),
    publicUrl,
    ...peppol(env),
    logLevel: env.INTAKE_LOG_LEVEL?.trim() || 'info',
    maxBodyBytes: bytes(env, 'INTAKE_MAX_BODY_BYTES', 5 * 1024 * 1024),
    maxFileBytes: bytes(env, 'INTAKE_MAX_FILE_BYTES', 100 * 1024 * 1024),
    ftpPasvRange: portRange(env, 'INTAKE_FTP_PASV_RANGE', { min: 30000, max: 30100 }),
    ftpPublicHost,
    tlsCertFile: tlsCert && path.resolve(cwd, tlsCert),
    tlsKeyFile: tlsKey && path.resolve(cwd, tlsKey),
    maxMailBytes: bytes(env, 'INTAKE_MAX_MAIL_BYTES', 25 * 1024 * 1024),
    secretKey: secretKey(env.INTAKE_SECRET_KEY),
    imapPollSeconds: seconds(env, 'INTAKE_IMAP_POLL_SECONDS', 60, 1, 3600),
    claimLeaseMs: millis(env, 'INTAKE_CLAIM_LEASE_MS', 30_000, 1000, 60 * 60_000),
    sweepIntervalMs: millis(env, 'INTAKE_SWEEP_INTERVAL_MS', 5000, 100, 60 * 60_000),
    ftpRequireTls: ftpRequireTls(env, tlsCert !== undefined),
    logFormat: logFormat(env.INTAKE_LOG_FORMAT),
    ...handoff(env),
    ...httpSettings(env, tlsCert !== undefined),
    uploadMemoryBytes: bytes(env, 'INTAKE_UPLOAD_MEMORY_BYTES', 512 * 1024 * 1024),
    feedPollMs: millis(env, 'INTAKE_FEED_POLL_MS', 250, 50, 60_000),
    outbox: onOff(env, 'INTAKE_OUTBOX', true),
    eventRetentionDays: wholeNumber(env, 'INTAKE_EVENT_RETENTION_DAYS', 'days', 90, 1, 3650),
    ...backups(env, cwd, databaseUrl !== undefined),
  });
}

function peppol(env: Env): Pick<Config, 'peppolId' | 'peppolUnits'> {
  const id = env.INTAKE_PEPPOL_ID?.trim() || undefined;
  let peppolId: Config['peppolId'];
  if (id !== undefined) {
    try {
      peppolId = parsePeppolId(id);
    } catch (e) {
      throw new ConfigError(`INTAKE_PEPPOL_ID: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
  }
  const units = new Map<string, string>();
  for (const pair of (env.INTAKE_PEPPOL_UNITS ?? '').split(',').map((p) => p.trim()).filter((p) => p !== '')) {
    const m = /^([A-Za-z0-9]{1,10})\s*=\s*([A-Za-z0-9]{1,10})$/.exec(pair);
    if (!m) throw new ConfigError(`INTAKE_PEPPOL_UNITS: "${pair}" must be CODE=UNIT (letters and digits, e.g. C62=PZ)`);
    units.set(m[1]!.toUpperCase(), m[2]!.toUpperCase());
  }
  return { ...(peppolId ? { peppolId } : {}), peppolUnits: units };
}

const DURATION_UNITS: Record<string, number> = { m: 60_000, h: 60 * 60_000, d: 24 * 60 * 60_000 };

/** Scheduled backups of the embedded store (see the Config fields of the same names). */
function backups(env: Env, cwd: string, postgres: boolean): Pick<Config, 'backupDir' | 'backupEveryMs' | 'backupKeep'> {
  const dir = env.INTAKE_BACKUP_DIR?.trim() || undefined;
  const every = env.INTAKE_BACKUP_EVERY?.trim() || undefined;
  const keep = env.INTAKE_BACKUP_KEEP?.trim() || undefined;
  if (!dir && (every || keep)) throw new ConfigError('INTAKE_BACKUP_EVERY and INTAKE_BACKUP_KEEP need INTAKE_BACKUP_DIR (the folder the backups go to)');
  if (dir && postgres) throw new ConfigError('INTAKE_BACKUP_DIR backs up the embedded SQLite database only: with PostgreSQL (INTAKE_DATABASE_URL) back it up with pg_dump (docs/operators/runbook.md)');
  let everyMs = 6 * 60 * 60_000;
  if (every) {
    const m = /^(\d{1,6})\s*([mhd])$/i.exec(every);
    everyMs = m ? Number(m[1]) * DURATION_UNITS[m[2]!.toLowerCase()]! : NaN;
    // Under a minute a backup of a large database would still be under way when the next is due.
    if (!(everyMs >= 60_000 && everyMs <= 30 * DURATION_UNITS.d!)) {
      throw new ConfigError(`INTAKE_BACKUP_EVERY must be a number and a unit (m, h or d), from 1m to 30d, e.g. 6h; got "${every}"`);
    }
  }
  return {
    ...(dir ? { backupDir: path.resolve(cwd, dir) } : {}),
    backupEveryMs: everyMs,
    backupKeep: wholeNumber(env, 'INTAKE_BACKUP_KEEP', 'backups', 7, 1, 1000),
  };
}

/** The webhook/export dispatcher's settings; the lease is checked against the timeout it must outlast. */
function handoff(env: Env): Pick<Config, 'webhookTimeoutMs' | 'handoffLeaseMs' | 'handoffPollMs' | 'handoffRetry'> {
  const webhookTimeoutMs = millis(env, 'INTAKE_WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000);
  const handoffLeaseMs = millis(env, 'INTAKE_HANDOFF_LEASE_MS', 60_000, 1000, 60 * 60_000);
  if (handoffLeaseMs < webhookTimeoutMs + 1000) {
    throw new ConfigError(`INTAKE_HANDOFF_LEASE_MS (${handoffLeaseMs}) must exceed INTAKE_WEBHOOK_TIMEOUT_MS (${webhookTimeoutMs}) by at least 1000`);
  }
  const raw = env.INTAKE_HANDOFF_RETRY?.trim();
  let handoffRetry = { firstMs: 5000, maxMs: 60 * 60_000, giveUpMs: 24 * 60 * 60_000 };
  if (raw) {
    const parts = raw.split(',').map((p) => Number(p.trim()));
    const [firstMs, maxMs, giveUpMs] = parts;
    // Up to 30 days: a longer give-up period is a typo, and a delivery that old is better replayed by hand.
    if (parts.length !== 3 || parts.some((n) => !Number.isInteger(n) || n < 1 || n > 30 * 24 * 60 * 60_000)
      || firstMs! > maxMs!) {
      throw new ConfigError(`INTAKE_HANDOFF_RETRY must look like 5000,3600000,86400000 (first, max, give-up in ms; first <= max), got "${raw}"`);
    }
    handoffRetry = { firstMs: firstMs!, maxMs: maxMs!, giveUpMs: giveUpMs! };
  }
  return {
    webhookTimeoutMs, handoffLeaseMs, handoffPollMs: millis(env, 'INTAKE_HANDOFF_POLL_MS', 200, 10, 60_000),
    handoffRetry: Object.freeze(handoffRetry),
  };
}

function logFormat(value: string | undefined): 'auto' | 'json' | 'pretty' {
  const v = value?.trim().toLowerCase() || 'auto';
  if (v !== 'auto' && v !== 'json' && v !== 'pretty') throw new ConfigError(`INTAKE_LOG_FORMAT must be auto, json or pretty, got "${v}"`);
  return v;
}

function ftpRequireTls(env: Env, hasCertificate: boolean): boolean {
  const v = env.INTAKE_FTP_REQUIRE_TLS?.trim().toLowerCase();
  if (!v || v === 'false' || v === '0' || v === 'no') return false;
  if (v !== 'true' && v !== '1' && v !== 'yes') throw new ConfigError(`INTAKE_FTP_REQUIRE_TLS must be true or false, got "${v}"`);
  // Requiring TLS without a certificate would refuse every login: a configuration mistake, said at start.
  if (!hasCertificate) throw new ConfigError('INTAKE_FTP_REQUIRE_TLS needs INTAKE_TLS_CERT and INTAKE_TLS_KEY');
  return true;
}

/** HTTPS, reverse proxy and metrics settings (see the Config fields of the same names). */
function httpSettings(env: Env, haveCert: boolean) {
  const tlsSetting = env.INTAKE_HTTP_TLS?.trim().toLowerCase() || (haveCert ? 'on' : 'off');
  if (tlsSetting !== 'on' && tlsSetting !== 'off') throw new ConfigError(`INTAKE_HTTP_TLS must be "on" or "off", got "${tlsSetting}"`);
  if (tlsSetting === 'on' && !haveCert) throw new ConfigError('INTAKE_HTTP_TLS=on needs INTAKE_TLS_CERT and INTAKE_TLS_KEY');
  const httpTls = tlsSetting === 'on';
  const redirect: PortSetting = env.INTAKE_HTTP_REDIRECT_PORT?.trim() ? port(env, 'INTAKE_HTTP_REDIRECT_PORT', 0) : 'off';
  if (redirect !== 'off' && !httpTls) throw new ConfigError('INTAKE_HTTP_REDIRECT_PORT needs HTTPS on the HTTP port (INTAKE_TLS_CERT and INTAKE_TLS_KEY)');
  const metricsToken = env.INTAKE_METRICS_TOKEN?.trim() || undefined;
  // A token short enough to guess would protect nothing; 32 characters is what `openssl rand -hex 16` prints.
  if (metricsToken !== undefined && metricsToken.length < 32) throw new ConfigError('INTAKE_METRICS_TOKEN must be at least 32 characters (e.g. the output of "openssl rand -hex 16")');
  return {
    httpTls,
    httpRedirectPort: redirect,
    trustProxy: trustProxyList(env.INTAKE_TRUST_PROXY),
    metricsToken,
    metricsPort: (env.INTAKE_METRICS_PORT?.trim() ? port(env, 'INTAKE_METRICS_PORT', 0) : 'off') as PortSetting,
    metricsHost: env.INTAKE_METRICS_HOST?.trim() || env.INTAKE_HOST?.trim() || '0.0.0.0',
  };
}

/** proxy-addr's names for whole ranges, accepted besides addresses and CIDR blocks. */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

function trustProxyList(value: string | undefined): readonly string[] {
  const entries = (value ?? '').split(',').map((e) => e.trim()).filter(Boolean);
  const out: string[] = [];
  for (const e of entries) {
    if (PROXY_RANGE_NAMES.includes(e.toLowerCase())) {
      out.push(e.toLowerCase());
      continue;
    }
    try {
      out.push(parseCidr(e));
    } catch (err) {
      throw new ConfigError(`INTAKE_TRUST_PROXY: ${(err as Error).message}`);
    }
  }
  return Object.freeze(out);
}

/** The sealing key as given, once it is known to decode to exactly 32 bytes (see src/auth/secret-box.ts). */
function secretKey(value: string | undefined): string | undefined {
  return parseSecretKey(value, 'INTAKE_SECRET_KEY');
}

/**
 * A sealing key from INTAKE_SECRET_KEY or from the key file (src/auth/secret-key-file.ts), checked the same way;
 * `source` names where it came from in the error.
 */
export function parseSecretKey(value: string | undefined, source: string): string | undefined {
  const v = value?.trim();
  if (!v) return undefined;
  const bytes = /^[0-9a-fA-F]{64}$/.test(v) ? Buffer.from(v, 'hex') : /^[A-Za-z0-9+/]{43}=?$/.test(v) ? Buffer.from(v, 'base64') : undefined;
  if (bytes?.length !== 32) {
    throw new ConfigError(`${source} must be 32 bytes as 64 hex digits or base64 (e.g. the output of "openssl rand -base64 32")`);
  }
  return v;
}

/** A whole number of `unit` from min to max. */
function wholeNumber(env: Env, key: string, unit: string, fallback: number, min: number, max: number): number {
  const v = env[key]?.trim();
  if (!v) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) throw new ConfigError(`${key} must be a whole number of ${unit} from ${min} to ${max}, got "${v}"`);
  return n;
}

function seconds(env: Env, key: string, fallback: number, min: number, max: number): number {
  return wholeNumber(env, key, 'seconds', fallback, min, max);
}

/** A duration in milliseconds. Above an hour it is a typo (seconds given a unit too many) rather than a choice. */
function millis(env: Env, key: string, fallback: number, min: number, max: number): number {
  return wholeNumber(env, key, 'milliseconds', fallback, min, max);
}
