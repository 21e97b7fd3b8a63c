/**
 * Settings come from environment variables only, are validated once here, and the frozen result is passed
 * down by the composition root. No other module reads process.env. Every key is documented below and in the
 * README ("Settings").
 */
import path from 'node:path';
import { IntakeError } from './errors.ts';

/** A listening port: a number (0 = ephemeral, the bound port is logged) or 'off' to disable the channel. */
export type PortSetting = number | 'off';

export interface Config {
  /** INTAKE_DATA_DIR: SQLite database, SFTP host key, generated files. Default ./data */
  readonly dataDir: string;
  /** INTAKE_DATABASE_URL: postgres://… selects PostgreSQL; unset means SQLite in dataDir. */
  readonly databaseUrl?: string;
  /** INTAKE_HOST: address every channel binds to. Default 0.0.0.0 */
  readonly host: string;
  /** INTAKE_HTTP_PORT: REST, SOAP, docs. Default 8080 */
  readonly httpPort: PortSetting;
  /** INTAKE_SFTP_PORT. Default 2222 */
  readonly sftpPort: PortSetting;
  /** INTAKE_FTP_PORT. Default 2121 */
  readonly ftpPort: PortSetting;
  /** INTAKE_SMTP_PORT. Default 2525 */
  readonly smtpPort: PortSetting;
  /** INTAKE_MAIL_DOMAIN: domain of the customers' order mailboxes. Default ordini.localhost */
  readonly mailDomain: string;
  /** INTAKE_SMTP_RELAY: smtp://host:port for outgoing replies; unset keeps replies in the store. */
  readonly smtpRelay?: string;
  /** INTAKE_TIMEZONE: IANA zone whose calendar year numbers orders. Default Europe/Rome */
  readonly timeZone: string;
  /** INTAKE_PUBLIC_URL: base URL customers use (SOAP namespace, WSDL address, printed examples). */
  readonly publicUrl?: string;
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
   * INTAKE_SECRET_KEY: 32 random bytes, as 64 hex digits or base64, that seal the IMAP mailbox passwords
   * (AES-256-GCM). Needed only for IMAP mailboxes; losing it means entering their passwords again.
   */
  readonly secretKey?: string;
  /**
   * INTAKE_IMAP_POLL_SECONDS: how often an IMAP mailbox is checked when its server cannot push new mail (no IDLE)
   * and how often the list of IMAP mailboxes is re-read. Default 60: orders are not chat, and providers throttle
   * clients that poll much faster.
   */
  readonly imapPollSeconds: number;
  /**
   * INTAKE_CLAIM_LEASE_MS: how long an instance's claim on a submission lasts unless renewed (it renews every third of
   * it), and so how long the work of an instance that died waits before another instance takes it over. The e-mail
   * pipeline holds a message it is deriving for ten times this, because that claim is not renewed and a large message
   * takes a while. Default 30000. At least 1000: a shorter lease is lost to an ordinary pause of a busy process
   * (garbage collection, a large order judged), and the same work would then be judged twice.
   */
  readonly claimLeaseMs: number;
  /**
   * INTAKE_SWEEP_INTERVAL_MS: how often an instance looks for received work no one holds (left by a crash, or by an
   * instance whose claims lapsed), for submissions and e-mail messages alike. Default 5000. At least 100: each look
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
   * INTAKE_OUTBOX: `off` stops writing order events (the outbox) — for `npm run bench` only, which measures the
   * outbox's cost side by side. Never in service: the feed, webhooks and exports then miss every order registered
   * meanwhile, for good. Default on.
   */
  readonly outbox: boolean;
}

type Env = Record<string, string | undefined>;

function onOff(env: Env, key: string, fallback: boolean): boolean {
  const v = env[key]?.trim().toLowerCase();
  if (v === undefined || v === '') return fallback;
  if (v === 'on') return true;
  if (v === 'off') return false;
  throw new IntakeError('VALIDATION', `${key} must be on or off, not "${env[key]}"`);
}

function port(env: Env, key: string, fallback: number): PortSetting {
  const v = env[key]?.trim();
  if (v === undefined || v === '') return fallback;
  if (v.toLowerCase() === 'off') return 'off';
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new IntakeError('INTERNAL', `${key} must be a port number (0-65535) or "off", got "${v}"`);
  return n;
}

function bytes(env: Env, key: string, fallback: number): number {
  const v = env[key]?.trim();
  if (!v) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new IntakeError('INTERNAL', `${key} must be a positive whole number of bytes, got "${v}"`);
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
    throw new IntakeError('INTERNAL', `${key} must look like 30000-30100 (ports 1024-65535, low to high), got "${v}"`);
  }
  return Object.freeze({ min, max });
}

function timeZone(v: string): string {
  try {
    new Intl.DateTimeFormat('en', { timeZone: v });
  } catch {
    throw new IntakeError('INTERNAL', `INTAKE_TIMEZONE "${v}" is not an IANA time zone`);
  }
  return v;
}

export function loadConfig(env: Env = process.env, cwd = process.cwd()): Config {
  const databaseUrl = env.INTAKE_DATABASE_URL?.trim() || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new IntakeError('INTERNAL', 'INTAKE_DATABASE_URL must start with postgres:// (unset it to use the embedded SQLite)');
  }
  const smtpRelay = env.INTAKE_SMTP_RELAY?.trim() || undefined;
  if (smtpRelay && !/^smtps?:\/\//.test(smtpRelay)) {
    throw new IntakeError('INTERNAL', 'INTAKE_SMTP_RELAY must look like smtp://host:port');
  }
  const tlsCert = env.INTAKE_TLS_CERT?.trim() || undefined;
  const tlsKey = env.INTAKE_TLS_KEY?.trim() || undefined;
  if ((tlsCert === undefined) !== (tlsKey === undefined)) throw new IntakeError('INTERNAL', 'INTAKE_TLS_CERT and INTAKE_TLS_KEY must be set together');
  const ftpPublicHost = env.INTAKE_FTP_PUBLIC_HOST?.trim() || undefined;
  // The FTP PASV reply can only carry an IPv4 address (IPv6 clients use EPSV, which carries none).
  if (ftpPublicHost && !/^\d{1,3}(\.\d{1,3}){3}$/.test(ftpPublicHost)) throw new IntakeError('INTERNAL', `INTAKE_FTP_PUBLIC_HOST must be an IPv4 address, got "${ftpPublicHost}"`);
  const publicUrl = env.INTAKE_PUBLIC_URL?.trim().replace(/\/+$/, '') || undefined;
  if (publicUrl && !/^https?:\/\//.test(publicUrl)) throw new IntakeError('INTERNAL', 'INTAKE_PUBLIC_URL must start with http:// or https://');
  return Object.freeze({
    dataDir: path.resolve(cwd, env.INTAKE_DATA_DIR?.trim() || './data'),
    databaseUrl,
    host: env.INTAKE_HOST?.trim() || '0.0.0.0',
    httpPort: port(env, 'INTAKE_HTTP_PORT', 8080),
    sftpPort: port(env, 'INTAKE_SFTP_PORT', 2222),
    ftpPort: port(env, 'INTAKE_FTP_PORT', 2121),
    smtpPort: port(env, 'INTAKE_SMTP_PORT', 2525),
    mailDomain: (env.INTAKE_MAIL_DOMAIN?.trim() || 'ordini.localhost').toLowerCase(),
    smtpRelay,
    timeZone: timeZone(env.INTAKE_TIMEZONE?.trim() || 'Europe/Rome'),
    publicUrl,
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
    feedPollMs: millis(env, 'INTAKE_FEED_POLL_MS', 250, 50, 60_000),
    outbox: onOff(env, 'INTAKE_OUTBOX', true),
  });
}

/** The sealing key as given, once it is known to decode to exactly 32 bytes (see src/channels/mail/secret-box.ts). */
function secretKey(value: string | undefined): string | undefined {
  const v = value?.trim();
  if (!v) return undefined;
  const bytes = /^[0-9a-fA-F]{64}$/.test(v) ? Buffer.from(v, 'hex') : /^[A-Za-z0-9+/]{43}=?$/.test(v) ? Buffer.from(v, 'base64') : undefined;
  if (bytes?.length !== 32) {
    throw new IntakeError('INTERNAL', 'INTAKE_SECRET_KEY must be 32 bytes as 64 hex digits or base64 (e.g. the output of "openssl rand -base64 32")');
  }
  return v;
}

/** A whole number of `unit` from min to max. */
function wholeNumber(env: Env, key: string, unit: string, fallback: number, min: number, max: number): number {
  const v = env[key]?.trim();
  if (!v) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) throw new IntakeError('INTERNAL', `${key} must be a whole number of ${unit} from ${min} to ${max}, got "${v}"`);
  return n;
}

function seconds(env: Env, key: string, fallback: number, min: number, max: number): number {
  return wholeNumber(env, key, 'seconds', fallback, min, max);
}

/** A duration in milliseconds. Above an hour it is a typo (seconds given a unit too many) rather than a choice. */
function millis(env: Env, key: string, fallback: number, min: number, max: number): number {
  return wholeNumber(env, key, 'milliseconds', fallback, min, max);
}
