/**
 * A key file only its owner may read (the SFTP host key, the secret key): made the first time it is needed and never
 * overwritten, so that two processes starting at once, or a restart, keep the first one.
 */
import { chmod, readFile, stat, writeFile } from 'node:fs/promises';
import type { Logger } from '../log.ts';

/**
 * The text of `file`, created with `content()` when it does not exist yet (`created` says so; the caller tells the
 * operator what it means). A file readable by others is set back to 0600: ssh-keygen and sshd insist on that for a
 * private key, and so do we, by fixing it.
 */
export async function privateFile(file: string, content: () => string, log: Logger, name: string): Promise<{ text: string; created: boolean }> {
  let created = false;
  try {
    await writeFile(file, content(), { flag: 'wx', mode: 0o600 });
    created = true;
  } catch (err) {
    // EEXIST is the normal case: the key of an earlier start (or of a process starting at the same moment).
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const st = await stat(file);
  if ((st.mode & 0o077) !== 0) {
    await chmod(file, 0o600);
    log.warn({ file }, `${name} was readable by others: permissions set to 0600`);
  }
  return { text: await readFile(file, 'utf8'), created };
}
