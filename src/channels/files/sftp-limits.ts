/**
 * The SFTP extension limits@openssh.com: the server tells the client the largest packet, READ and WRITE it takes.
 *
 * Why: ssh2's SFTP client (the bench's, and Node-based customers') assumes a server that does not say so takes WRITEs
 * of at most 34,000 − 2,048 = 31,952 bytes (unless its identification says OpenSSH or dropbear), so it cut every
 * 32 KiB WRITE in two and sent the 816-byte rest only once the first part was answered. Twice the requests and
 * replies, and every upload arrived out of order: the spool could not gather the writes into 1 MiB disk writes nor
 * hash the file as it arrived (it was read back at the CLOSE), and nothing could be copied into the store before the
 * end (upload-stager.ts). OpenSSH's sftp-server offers this extension; OpenSSH's sftp client then uses its limits too.
 *
 * ssh2's server sends a fixed VERSION without extensions and has no call for an extension's reply, so both are
 * written here on the channel, as ssh2 writes its own packets (within the channel's window).
 */
import type { SFTPWrapper } from 'ssh2';
import { LIMITS } from './limits.ts';

export const LIMITS_EXTENSION = 'limits@openssh.com';

/** ssh2's server refuses a packet longer than this (its SFTP parser's _maxInPktLen, OpenSSH's too). */
const MAX_PACKET = 256 * 1024;
/** What the largest packet leaves for a WRITE's data after its header (OpenSSH's sftp-server says the same). */
const MAX_WRITE = MAX_PACKET - 1024;

const SSH_FXP_VERSION = 2;
const SSH_FXP_EXTENDED_REPLY = 201;

/** ssh2's internals this file writes through (not in its type declarations). */
interface Internals {
  outgoing: { id: number; window: number; state: string };
  _protocol: { channelData(id: number, data: Buffer): void };
}

function sshString(s: string): Buffer {
  const b = Buffer.alloc(4 + Buffer.byteLength(s));
  b.writeUInt32BE(b.length - 4, 0);
  b.write(s, 4);
  return b;
}

/** VERSION 3 naming the extension (ssh2's own is VERSION 3 with none). */
const VERSION_WITH_LIMITS = (() => {
  const body = Buffer.concat([Buffer.from([SSH_FXP_VERSION, 0, 0, 0, 3]), sshString(LIMITS_EXTENSION), sshString('1')]);
  const len = Buffer.alloc(4);
  len.writeUInt32BE(body.length);
  return Buffer.concat([len, body]);
})();

function hasInternals(s: Partial<Internals>): s is Internals {
  return typeof s._protocol?.channelData === 'function' && typeof s.outgoing?.id === 'number' && typeof s.outgoing.window === 'number';
}

function isPlainVersion(data: Buffer): boolean {
  return data.length === 9 && data.readUInt32BE(0) === 5 && data[4] === SSH_FXP_VERSION;
}

/**
 * Call on a freshly accepted sftp channel, before the client's INIT is read: ssh2's VERSION answer to it is
 * replaced by one that names the extension. Only this channel's first packet is looked at; after it, ssh2 writes
 * as it always does.
 */
export function offerLimits(sftp: SFTPWrapper): void {
  const s = sftp as unknown as Partial<Internals>;
  // Another ssh2 than the one this was written for (1.17): no extension, the clients keep their defaults.
  if (!hasInternals(s)) return;
  const protocol = s._protocol;
  const id = s.outgoing.id;
  // This channel's own view of the connection until its VERSION is out; every other call goes to the connection.
  s._protocol = new Proxy(protocol, {
    get(target, key) {
      if (key === 'channelData') {
        return (channel: number, data: Buffer) => {
          if (channel === id && isPlainVersion(data)) {
            s._protocol = protocol;
            // The same window ssh2 took for its 9 bytes: the extension's are added to it.
            s.outgoing.window -= VERSION_WITH_LIMITS.length - data.length;
            return protocol.channelData(channel, VERSION_WITH_LIMITS);
          }
          return protocol.channelData(channel, data);
        };
      }
      const v: unknown = Reflect.get(target, key, target);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

/**
 * Answer a limits@openssh.com request; false when it cannot be written now (the channel's window is used up: the
 * client then gets OP_UNSUPPORTED and keeps its defaults, as before).
 */
export function answerLimits(sftp: SFTPWrapper, reqid: number): boolean {
  const s = sftp as unknown as Partial<Internals>;
  if (!hasInternals(s)) return false;
  const out = Buffer.alloc(4 + 1 + 4 + 4 * 8);
  out.writeUInt32BE(out.length - 4, 0);
  out[4] = SSH_FXP_EXTENDED_REPLY;
  out.writeUInt32BE(reqid, 5);
  out.writeBigUInt64BE(BigInt(MAX_PACKET), 9);
  out.writeBigUInt64BE(BigInt(LIMITS.maxReadChunk), 17);
  out.writeBigUInt64BE(BigInt(MAX_WRITE), 25);
  out.writeBigUInt64BE(BigInt(LIMITS.openFilesPerSession), 33);
  if (s.outgoing.state !== 'open' || s.outgoing.window < out.length) return false;
  s.outgoing.window -= out.length;
  s._protocol.channelData(s.outgoing.id, out);
  return true;
}
