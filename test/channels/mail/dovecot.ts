/**
 * A real IMAP server for the tests: Dovecot (Debian package dovecot-imapd, installed by .ci/run) started in the
 * foreground with a throw-away configuration in a temporary folder: one passwd-file user, Maildir storage, no TLS,
 * listening on the loopback on a free port. Stopped (and its folder removed) at the end.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { skipUnlessPresent } from '../../helpers/required.ts';
import { tempDir } from '../../helpers/service.ts';
import { freePort } from './helpers.ts';
import { waitUntil } from '../../helpers/wait.ts';

export interface Dovecot {
  port: number;
  user: string;
  password: string;
  stop(): Promise<void>;
}

/** The `skip` option of a test that needs Dovecot: false when it can run; a failure in CI when it cannot. */
export function dovecotSkip(): string | false {
  return skipUnlessPresent(dovecotMissing());
}

/** Why Dovecot cannot run here, or undefined when it can. */
function dovecotMissing(): string | undefined {
  if (spawnSync('dovecot', ['--version']).status !== 0) return 'dovecot is not installed (apt-get install dovecot-imapd)';
  if (process.getuid?.() !== 0) return 'the throw-away Dovecot needs root (it switches to its own users)';
  return undefined;
}

function uidOf(user: string): number {
  const r = spawnSync('id', ['-u', user], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`no system user ${user}: is dovecot-imapd installed?`);
  return Number(r.stdout.trim());
}

async function listening(port: number, timeoutMs: number, proc: ChildProcess, log: () => string): Promise<void> {
  const accepts = () => new Promise<boolean>((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => { s.destroy(); resolve(true); });
    s.once('error', () => resolve(false));
  });
  await waitUntil(async () => {
    if (proc.exitCode !== null) throw new Error(`dovecot exited with ${proc.exitCode}:\n${log()}`);
    return accepts();
  }, `dovecot listening on ${port}`, timeoutMs).catch((e: Error) => { throw new Error(`${e.message}:\n${log()}`, { cause: e }); });
}

export async function startDovecot(): Promise<Dovecot> {
  const dir = tempDir('intake-dovecot-');
  // Dovecot's own processes run as dovecot, dovenull and the mail user: they must be able to reach the folder.
  chmodSync(dir, 0o755);
  const mail = path.join(dir, 'mail');
  mkdirSync(mail);
  mkdirSync(path.join(dir, 'run'));
  const nobody = uidOf('nobody');
  chownSync(mail, nobody, nobody);
  const port = await freePort();
  const user = 'ordini';
  const password = 'segreto-di-prova';
  writeFileSync(path.join(dir, 'users'), `${user}:{PLAIN}${password}::::::\n`, { mode: 0o644 });
  const conf = path.join(dir, 'dovecot.conf');
  writeFileSync(conf, `
base_dir = ${dir}/run
state_dir = ${dir}/state
log_path = ${dir}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
mail_location = maildir:${mail}/%u
first_valid_uid = ${nobody}
default_internal_user = dovecot
default_login_user = dovenull
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${dir}/users
}
userdb {
  driver = passwd-file
  args = username_format=%u ${dir}/users
  default_fields = uid=${nobody} gid=${nobody} home=${mail}/%u
}
namespace inbox {
  inbox = yes
  separator = /
}
service imap-login {
  inet_listener imap {
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
}
`);
  let out = '';
  const proc = spawn('dovecot', ['-F', '-c', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
  proc.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
  proc.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  try {
    await listening(port, 15_000, proc, () => out);
  } catch (e) {
    proc.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  return {
    port, user, password,
    async stop() {
      if (proc.exitCode === null) proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
