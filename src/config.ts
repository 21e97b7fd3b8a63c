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
  });
}
