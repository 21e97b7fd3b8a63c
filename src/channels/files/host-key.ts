/**
 * The SFTP server's host key: generated on first start, then kept at `<dataDir>/ssh_host_ed25519_key` (mode 0600)
 * so clients that trusted it once keep trusting it. Several instances behind one address must share this file,
 * or clients would see the key change between connections.
 *
 * Node can generate ed25519 keys but only writes them as PKCS#8, which ssh2 does not read; ssh2 reads the OpenSSH
 * format (`openssh-key-v1`, what ssh-keygen writes), so the key is written in that format here.
 */
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import path from 'node:path';
import ssh2 from 'ssh2';
import type { Logger } from '../../log.ts';
import { privateFile } from '../../auth/private-file.ts';

export const HOST_KEY_FILE = 'ssh_host_ed25519_key';

export interface HostKey {
  /** The private key in OpenSSH format, as ssh2's hostKeys takes it. */
  privateKey: string;
  /** `SHA256:<base64 without padding>`, as OpenSSH prints it. */
  fingerprint: string;
  /** The public key line (`ssh-ed25519 AAAA… comment`) for known_hosts files. */
  publicKey: string;
}

function sshString(data: Buffer | string): Buffer {
  const b = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const len = Buffer.alloc(4);
  len.writeUInt32BE(b.length);
  return Buffer.concat([len, b]);
}

function uint32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

/** A new ed25519 key pair as an unencrypted OpenSSH private key file. */
export function generateOpenSshEd25519(comment = 'order-intake'): string {
  const { privateKey } = generateKeyPairSync('ed25519');
  const jwk = privateKey.export({ format: 'jwk' });
  if (!jwk.d || !jwk.x) throw new Error('ed25519 key export gave no key material');
  const seed = Buffer.from(jwk.d, 'base64url');
  const pub = Buffer.from(jwk.x, 'base64url');
  const publicBlob = Buffer.concat([sshString('ssh-ed25519'), sshString(pub)]);
  const check = randomBytes(4);
  let priv = Buffer.concat([
    check, check, sshString('ssh-ed25519'), sshString(pub), sshString(Buffer.concat([seed, pub])), sshString(comment),
  ]);
  // The private section is padded with 1, 2, 3, … to the cipher block size (8 for "none").
  const pad = (8 - (priv.length % 8)) % 8;
  priv = Buffer.concat([priv, Buffer.from(Array.from({ length: pad }, (_, i) => i + 1))]);
  const body = Buffer.concat([
    Buffer.from('openssh-key-v1\0', 'latin1'), sshString('none'), sshString('none'), sshString(''), uint32(1),
    sshString(publicBlob), sshString(priv),
  ]);
  const lines = body.toString('base64').match(/.{1,70}/g) ?? [];
  return `-----BEGIN OPENSSH PRIVATE KEY-----\n${lines.join('\n')}\n-----END OPENSSH PRIVATE KEY-----\n`;
}

export function describeKey(privateKey: string): HostKey {
  const parsed = ssh2.utils.parseKey(privateKey);
  if (parsed instanceof Error) throw new Error(`the SFTP host key cannot be read: ${parsed.message}`);
  const blob = parsed.getPublicSSH();
  const fingerprint = `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
  return { privateKey, fingerprint, publicKey: `${parsed.type} ${blob.toString('base64')} ${parsed.comment || 'order-intake'}` };
}

/** Load the host key, creating it on first start. */
export async function loadOrCreateHostKey(dataDir: string, log: Logger): Promise<HostKey> {
  const file = path.join(dataDir, HOST_KEY_FILE);
  const { text, created } = await privateFile(file, generateOpenSshEd25519, log, 'the SFTP host key');
  if (created) log.info({ file }, 'generated the SFTP host key');
  return describeKey(text);
}
