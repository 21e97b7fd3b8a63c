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
}

type Env = Record<string, string | undefined>;

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
  });
}
