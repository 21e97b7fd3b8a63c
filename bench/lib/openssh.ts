/**
 * OpenSSH's sshd with its sftp-server, as the reference the SFTP channel is measured against: started by the
 * benchmark on an ephemeral port of 127.0.0.1 with its own host key, config and authorised key in a scratch
 * folder, so it touches nothing of the machine's own SSH set-up. Installed with apt-get when missing (as root).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { stopChild, track } from './children.ts';

const SSHD = '/usr/sbin/sshd';
const SFTP_SERVER = '/usr/lib/openssh/sftp-server';
/** apt-get may have to refresh its index first; past this it is stuck (network) and the comparison is skipped. */
const APT_TIMEOUT_MS = 10 * 60_000;

export interface Sshd {
  port: number;
  username: string;
  privateKey: Buffer;
  /** Where uploads land (an absolute path on this machine, which is also the path on the SFTP server). */
  uploadDir: string;
  version: string;
  stop(): Promise<void>;
}

function apt(args: string[]): { ok: boolean; output: string } {
  const r = spawnSync('apt-get', args, {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, encoding: 'utf8', timeout: APT_TIMEOUT_MS,
  });
  return { ok: r.status === 0, output: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}` };
}

/** Undefined when sshd and sftp-server are there (installing them if need be), else why they are not. */
export function ensureOpenSsh(progress: (m: string) => void): string | undefined {
  if (existsSync(SSHD) && existsSync(SFTP_SERVER)) return undefined;
  if (process.getuid?.() !== 0) return `OpenSSH server is not installed and installing needs root: apt-get install openssh-server`;
  progress('installing openssh-server with apt-get (for the SFTP reference)');
  const install = ['install', '-y', '--no-install-recommends', 'openssh-server'];
  let r = apt(install);
  if (!r.ok) {
    apt(['update']);
    r = apt(install);
  }
  if (!r.ok || !existsSync(SSHD) || !existsSync(SFTP_SERVER)) return `apt-get install openssh-server failed: ${r.output.trim().split('\n').slice(-3).join(' / ')}`;
  return undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => (typeof a === 'object' && a ? resolve(a.port) : reject(new Error('no port'))));
    });
  });
}

function keygen(file: string): void {
  const r = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', file], { encoding: 'utf8', timeout: 30_000 });
  if (r.status !== 0) throw new Error(`ssh-keygen failed: ${r.stderr}`);
}

export async function startSshd(dir: string): Promise<Sshd> {
  mkdirSync(dir, { recursive: true });
  const uploadDir = path.join(dir, 'upload');
  mkdirSync(uploadDir, { recursive: true });
  keygen(path.join(dir, 'host_key'));
  keygen(path.join(dir, 'client_key'));
  writeFileSync(path.join(dir, 'authorized_keys'), readFileSync(path.join(dir, 'client_key.pub')));
  // sshd refuses to start without its privilege separation folder (normally made by the init script).
  if (process.getuid?.() === 0) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const port = await freePort();
  const config = path.join(dir, 'sshd_config');
  writeFileSync(config, [
    `Port ${port}`, 'ListenAddress 127.0.0.1', `HostKey ${path.join(dir, 'host_key')}`, `PidFile ${path.join(dir, 'sshd.pid')}`,
    `AuthorizedKeysFile ${path.join(dir, 'authorized_keys')}`, 'PubkeyAuthentication yes', 'PasswordAuthentication no',
    'KbdInteractiveAuthentication no', 'PermitRootLogin prohibit-password', 'UsePAM no', 'StrictModes no',
    `Subsystem sftp ${SFTP_SERVER}`, '',
  ].join('\n'));
  const version = spawnSync(SSHD, ['-V'], { encoding: 'utf8' }).stderr.trim().split('\n')[0] ?? 'unknown';
  const proc = track(spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] }));
  const lines: string[] = [];
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`sshd did not start within 10 s: ${lines.join(' / ')}`)), 10_000);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`sshd exited with ${code}: ${lines.join(' / ')}`));
    });
    createInterface({ input: proc.stderr! }).on('line', (l) => {
      if (lines.length < 50) lines.push(l);
      if (/Server listening on/.test(l)) {
        clearTimeout(timer);
        resolve();
      }
    });
  }).catch(async (e: unknown) => {
    await stopChild(proc);
    throw e;
  });
  return {
    port,
    username: os.userInfo().username,
    privateKey: readFileSync(path.join(dir, 'client_key')),
    uploadDir,
    version,
    stop: async () => {
      await stopChild(proc);
    },
  };
}
