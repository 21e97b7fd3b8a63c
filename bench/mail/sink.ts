/**
 * The reply sink, run as its own process: the SMTP relay of the service under test (INTAKE_SMTP_RELAY). It accepts
 * every reply, timestamps it at the end of DATA and keeps only its In-Reply-To and size. Over IPC: first `{port}`,
 * then `{cmd:'count'}` → `{count}` and `{cmd:'collect'}` → every reply so far, as often as asked; it runs until
 * stopped.
 *
 * Why not smtp-server: it holds every new connection 100 ms before its greeting (to catch clients that talk too
 * soon; hard-coded in smtp-connection.js), and the service opens one connection per reply, one reply at a time, so
 * an smtp-server relay caps the service at about 9 replies/s whatever the service does (measured: see
 * performance-history.md). A relay such as Postfix's smtpd on localhost greets at once; so does this sink. It speaks the
 * little of RFC 5321 a sending client needs (EHLO/HELO, MAIL, RCPT, DATA, RSET, NOOP, QUIT), without PIPELINING,
 * STARTTLS or AUTH, so the client sends one command at a time in clear.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { epochMs } from '../lib/loop.ts';
import { inReplyTo } from './replies.ts';
import type { ReplySeen, SinkCollected, SinkCount, SinkRequest } from './protocol.ts';

/** Replies kept at most: far above what a run sends, and a bound if a service loops sending replies. */
const MAX_REPLIES = 2_000_000;
/** Bytes of a message kept for reading its headers; the rest is counted and dropped. */
const HEAD_BYTES = 64 * 1024;
/** A command line longer than this is not SMTP (RFC 5321 allows 512 bytes). */
const MAX_LINE = 4096;
const END_OF_DATA = Buffer.from('\r\n.\r\n');

const replies: ReplySeen[] = [];
let connections = 0;

function session(socket: net.Socket): void {
  connections++;
  socket.setNoDelay(true);
  socket.on('error', () => undefined); // a client that drops its connection is not the sink's concern
  let inData = false;
  let pending: Buffer = Buffer.alloc(0);
  let head: Buffer[] = [];
  let headBytes = 0;
  let bytes = 0;
  const reply = (line: string) => socket.write(`${line}\r\n`);
  socket.write('220 bench-sink ESMTP\r\n');

  const onData = (chunk: Buffer) => {
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    for (;;) {
      if (inData) {
        // The end of DATA may straddle chunks: keep the last 4 bytes with the next chunk.
        const end = pending.indexOf(END_OF_DATA);
        const body = end < 0 ? pending.subarray(0, Math.max(0, pending.length - 4)) : pending.subarray(0, end + 2);
        bytes += body.length;
        if (headBytes < HEAD_BYTES) {
          head.push(body);
          headBytes += body.length;
        }
        if (end < 0) {
          pending = pending.subarray(body.length);
          return;
        }
        pending = pending.subarray(end + END_OF_DATA.length);
        if (replies.length < MAX_REPLIES) replies.push({ inReplyTo: inReplyTo(Buffer.concat(head)), receivedAt: epochMs(), bytes });
        inData = false;
        head = [];
        headBytes = 0;
        bytes = 0;
        reply('250 2.0.0 Ok: queued');
        continue;
      }
      const eol = pending.indexOf('\r\n');
      if (eol < 0) {
        if (pending.length > MAX_LINE) socket.destroy();
        return;
      }
      const line = pending.subarray(0, eol).toString('latin1');
      pending = pending.subarray(eol + 2);
      const verb = line.slice(0, 4).toUpperCase();
      if (verb === 'EHLO') socket.write('250-bench-sink\r\n250-8BITMIME\r\n250 SMTPUTF8\r\n');
      else if (verb === 'DATA') {
        inData = true;
        reply('354 End data with <CR><LF>.<CR><LF>');
      } else if (verb === 'QUIT') {
        socket.end('221 2.0.0 Bye\r\n');
        return;
      } else if (['HELO', 'MAIL', 'RCPT', 'RSET', 'NOOP'].includes(verb)) reply('250 2.0.0 Ok');
      else reply('502 5.5.2 Command not implemented');
    }
  };
  socket.on('data', onData);
}

const server = net.createServer(session);
server.listen(0, '127.0.0.1', () => {
  process.send!({ port: (server.address() as AddressInfo).port });
});

process.on('message', (req: SinkRequest) => {
  if (req.cmd === 'count') process.send!({ count: replies.length } satisfies SinkCount);
  else process.send!({ replies, connections } satisfies SinkCollected);
});
