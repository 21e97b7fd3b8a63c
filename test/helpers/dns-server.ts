// A tiny DNS server on 127.0.0.1 (UDP) answering TXT queries from fixture records: SPF, DKIM keys and DMARC
// policies for the mail tests, so that no test depends on real DNS. Names not listed get NXDOMAIN; a listed name
// asked for another type gets an empty answer (NODATA). `silent` makes it drop every query, as a DNS server that
// does not answer.
import { createSocket, type RemoteInfo } from 'node:dgram';

export interface DnsFixture {
  /** `127.0.0.1:port`, as INTAKE_DNS_SERVERS takes it. */
  address: string;
  /** name (lower case) → its TXT records. */
  txt: Map<string, string[]>;
  /** Drop queries instead of answering. */
  silent: boolean;
  /** Queries seen (name/type), to check that a lookup was made. */
  queries: string[];
  close(): Promise<void>;
  /** Let the process end while the server is open. */
  unref(): void;
}

const TYPE_TXT = 16;

function readName(msg: Buffer, at: number): { name: string; next: number } {
  const labels: string[] = [];
  let i = at;
  // Queries carry no compression pointers; a label length over 63 ends the name (and the query is answered NXDOMAIN).
  while (i < msg.length && msg[i]! > 0 && msg[i]! < 64) {
    labels.push(msg.subarray(i + 1, i + 1 + msg[i]!).toString('latin1'));
    i += 1 + msg[i]!;
  }
  return { name: labels.join('.').toLowerCase(), next: i + 1 };
}

/** TXT RDATA: the text in strings of at most 255 bytes each (RFC 1035 3.3.14). */
function txtData(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  const parts: Buffer[] = [];
  for (let i = 0; i < bytes.length || i === 0; i += 255) {
    const chunk = bytes.subarray(i, i + 255);
    parts.push(Buffer.from([chunk.length]), chunk);
    if (bytes.length === 0) break;
  }
  return Buffer.concat(parts);
}

export async function startDnsServer(records: Record<string, string | string[]> = {}): Promise<DnsFixture> {
  const socket = createSocket('udp4');
  const fixture: DnsFixture = {
    address: '',
    txt: new Map(Object.entries(records).map(([k, v]) => [k.toLowerCase(), Array.isArray(v) ? v : [v]])),
    silent: false,
    queries: [],
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
    unref: () => socket.unref(),
  };
  socket.on('message', (msg: Buffer, rinfo: RemoteInfo) => {
    if (msg.length < 12) return;
    const { name, next } = readName(msg, 12);
    const qtype = msg.readUInt16BE(next);
    fixture.queries.push(`${name}/${qtype}`);
    if (fixture.silent) return;
    const question = msg.subarray(12, next + 4);
    const known = fixture.txt.get(name);
    const answers = known && qtype === TYPE_TXT ? known : [];
    const header = Buffer.alloc(12);
    msg.copy(header, 0, 0, 2); // the query's id
    // QR=1, opcode 0, AA=1, RD copied; RA=1; RCODE 0 (NOERROR) or 3 (NXDOMAIN).
    header.writeUInt16BE(0x8400 | (msg.readUInt16BE(2) & 0x0100) | 0x0080 | (known ? 0 : 3), 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    const rrs = answers.map((text) => {
      const data = txtData(text);
      const rr = Buffer.alloc(12);
      rr.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
      rr.writeUInt16BE(TYPE_TXT, 2);
      rr.writeUInt16BE(1, 4); // class IN
      rr.writeUInt32BE(60, 6);
      rr.writeUInt16BE(data.length, 10);
      return Buffer.concat([rr, data]);
    });
    socket.send(Buffer.concat([header, question, ...rrs]), rinfo.port, rinfo.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
  fixture.address = `127.0.0.1:${socket.address().port}`;
  return fixture;
}

let shared: Promise<DnsFixture> | undefined;

/**
 * One empty fixture DNS server per test process, for services started by tests that are not about sender checks:
 * their senders (`mario@cliente.it`) get NXDOMAIN from it, as from no DNS at all, so no test depends on what the
 * real domains publish. Its socket does not keep the process alive.
 */
export async function sharedDnsAddress(): Promise<string> {
  shared ??= startDnsServer().then((d) => {
    d.unref();
    return d;
  });
  return (await shared).address;
}
