/**
 * The key that seals webhook signing secrets and IMAP mailbox passwords (src/auth/secret-box.ts), when
 * INTAKE_SECRET_KEY does not give one. With the embedded SQLite store the service generates it on first need and
 * keeps it at `<dataDir>/secret.key` (mode 0600, beside the database it opens, created the way the SFTP host key is:
 * `wx`, so two starts at the same moment never overwrite each other's key). With PostgreSQL it is never generated:
 * several instances share the database and must seal with one key, and a file on one machine cannot be that key.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, parseSecretKey, type Config } from '../config.ts';
import type { Logger } from '../log.ts';
import { privateFile } from './private-file.ts';

export const SECRET_KEY_FILE = 'secret.key';

type KeySettings = Pick<Config, 'dataDir' | 'databaseUrl' | 'secretKey'>;

/** The sealing key in force: INTAKE_SECRET_KEY when set, else (SQLite only) the key file, created on first need. */
export async function resolveSecretKey(config: KeySettings, log: Logger): Promise<string> {
  const file = path.join(config.dataDir, SECRET_KEY_FILE);
  if (config.secretKey) {
    // Only SQLite can have a generated file; a file left from before the key was set is ignored, but said, since
    // what it sealed does not open with the key now in force.
    if (!config.databaseUrl) {
      const kept = await readFile(file, 'utf8').then((s) => s.trim(), () => undefined);
      if (kept !== undefined && kept !== config.secretKey) {
        log.warn({ file }, `INTAKE_SECRET_KEY is set and differs from the key in ${file}: that file is not used, and secrets sealed with it do not open`);
      }
    }
    return config.secretKey;
  }
  if (config.databaseUrl) {
    throw new ConfigError('INTAKE_SECRET_KEY is not set: with PostgreSQL (INTAKE_DATABASE_URL) every instance must seal webhook secrets and IMAP passwords with the same key, so none is generated; set it to the same value on every instance (generate one with "openssl rand -base64 32")');
  }
  await mkdir(config.dataDir, { recursive: true });
  const { text, created } = await privateFile(file, () => `${randomBytes(32).toString('base64')}\n`, log, 'the secret key file');
  if (created) log.warn({ file }, `generated the secret key in ${file} (INTAKE_SECRET_KEY is not set): back it up with the database, without it the webhook secrets and IMAP passwords stored there cannot be opened`);
  // A file created by a start that died between creating and writing it is empty; it holds nothing sealed yet.
  return parseSecretKey(text, file) ?? raise(file);
}

function raise(file: string): never {
  throw new ConfigError(`${file} is empty: remove it to have a new key generated, or set INTAKE_SECRET_KEY`);
}
