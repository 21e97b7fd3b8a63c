/**
 * FTP passive data connections, made safe against the passive port race (issue 19, item 10).
 *
 * ftp-srv's passive connector answered a data connection from the wrong address with 550 and closed the control
 * connection: anyone who connected first to the port a PASV reply announced could end a customer's session. Here a
 * stray connection is dropped and the port keeps waiting for the client, whose address must equal the control
 * connection's (RFC 2577 section 5; what vsftpd's pasv_promiscuous=NO does). Ports are also taken at random in the
 * configured range instead of in order, so the next one cannot be guessed from the last.
 *
 * ftp-srv creates its connector inside its PASV/EPSV commands, so the only seam is the connector class: its
 * setupServer is replaced once, by ours, when the FTP server starts (node_modules stays untouched).
 */
import { randomInt } from 'node:crypto';
import { createRequire } from 'node:module';
import net, { type Server, type Socket } from 'node:net';
import tls from 'node:tls';
import { plainAddress } from '../connection-guard.ts';

/** ftp-srv's idle limit for a passive port nobody connected to; ours too. */
const CONNECT_TIMEOUT_MS = 30_000;
/** Random ports tried before giving up (each a bind attempt): the range would have to be nearly full to miss. */
const PORT_ATTEMPTS = 50;
/** Connections one passive port may see at once: the client's, plus a few strays being dropped. */
const PASSIVE_BACKLOG = 8;

interface FtpSrvLike {
  options: { tls?: object | false; pasv_min?: number; pasv_max?: number };
  url: { hostname: string };
  emit(event: string, arg: unknown): void;
}

interface PassiveLike {
  connection: { commandSocket: Socket; secure?: boolean; server: FtpSrvLike };
  server: FtpSrvLike | undefined;
  log: { debug(o: object, m: string): void; warn?(o: object, m: string): void; error(o: object, m: string): void };
  dataServer: Server | null;
  dataSocket: (Socket & { connected?: boolean }) | null;
  closeServer(): void;
  end(): void;
}

/** Listen on a random free port of [min, max] at host; resolves with the listening server. */
export function listenRandom(make: () => Server, host: string, min: number, max: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    let attempts = 0;
    const attempt = () => {
      attempts++;
      const server = make();
      server.once('error', (err: NodeJS.ErrnoException) => {
        if (err.code === 'EADDRINUSE' && attempts < PORT_ATTEMPTS) attempt();
        else reject(Object.assign(new Error('Nessuna porta passiva libera, riprovare'), { code: 425 }));
      });
      server.listen(randomInt(min, max + 1), host, () => resolve(server));
    };
    attempt();
  });
}

function setupServer(this: PassiveLike): Promise<Server> {
  this.closeServer();
  this.dataSocket = null;
  const server = this.server ?? this.connection.server;
  const secure = Boolean(this.connection.secure);
  const expected = plainAddress(this.connection.commandSocket.remoteAddress);
  let idle: NodeJS.Timeout | undefined;

  const onSocket = (socket: Socket & { connected?: boolean }) => {
    socket.on('error', (error) => this.server?.emit('client-error', { connection: this.connection, context: 'dataSocket', error }));
    if (plainAddress(socket.remoteAddress) !== expected || this.dataSocket) {
      // Someone else (or a second connection): drop it and keep waiting for the client, whose session goes on.
      this.log.error({ pasv_connection: socket.remoteAddress, cmd_connection: expected }, 'stray passive data connection dropped');
      socket.destroy();
      return;
    }
    clearTimeout(idle);
    this.dataSocket = socket;
    socket.once('close', () => this.closeServer());
    if (!secure) socket.connected = true;
  };

  const make = (): Server => {
    const options = { ...(secure && server.options.tls ? server.options.tls : {}), pauseOnConnect: true };
    const s = secure ? tls.createServer(options, onSocket) : net.createServer(options, onSocket);
    s.maxConnections = PASSIVE_BACKLOG;
    return s;
  };

  return listenRandom(make, server.url.hostname, server.options.pasv_min ?? 1024, server.options.pasv_max ?? 65535).then((s) => {
    this.dataServer = s;
    s.on('error', (error) => this.server?.emit('client-error', { connection: this.connection, context: 'dataServer', error }));
    s.once('close', () => this.end());
    if (secure) s.on('secureConnection', (socket: Socket & { connected?: boolean }) => {
      if (socket === this.dataSocket) socket.connected = true;
    });
    idle = setTimeout(() => this.closeServer(), CONNECT_TIMEOUT_MS);
    this.log.debug({ port: (s.address() as net.AddressInfo).port }, 'passive connection listening');
    return s;
  });
}

let installed = false;

/** Put our setupServer in place of ftp-srv's (once per process). */
export function installSafePassive(): void {
  if (installed) return;
  const require = createRequire(import.meta.url);
  const Passive = require('ftp-srv/src/connector/passive.js') as { prototype: { setupServer: unknown } };
  Passive.prototype.setupServer = setupServer;
  installed = true;
}
