/**
 * Files of portal uploads on disk while their request arrives, under `<dataDir>/spool/portal/`: each file is written
 * as its bytes come (hashed on the way), so a request never holds a whole file in memory, and nothing is stored
 * before the whole request has been read (a request refused for its number of files leaves nothing behind). A file
 * is deleted once stored and judged, or as soon as its request is refused; a crash's leftovers, never acknowledged,
 * are deleted at start.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Logger } from '../../../log.ts';

export interface SpooledFile {
  path: string;
  size: number;
  /** Hex SHA-256 of the file, computed as it was written. */
  sha256: string;
}

export class PortalSpool {
  readonly dir: string;

  constructor(dataDir: string, private readonly log: Logger) {
    this.dir = path.join(dataDir, 'spool', 'portal');
  }

  /** Create the folder and delete what a stop cut in the middle of an upload (never acknowledged). */
  async init(): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const cut = await readdir(this.dir);
    for (const f of cut) await rm(path.join(this.dir, f), { force: true, recursive: true });
    if (cut.length > 0) this.log.warn({ discarded: cut.length }, 'discarded portal uploads cut by the previous stop (never acknowledged)');
  }

  /** Write `stream` to a new file of the spool; on any failure the file is deleted and the error thrown. */
  async take(stream: Readable): Promise<SpooledFile> {
    const file = path.join(this.dir, randomUUID());
    const hash = createHash('sha256');
    let size = 0;
    const tally = new Transform({
      transform(chunk: Buffer, _enc, done) {
        hash.update(chunk);
        size += chunk.length;
        done(null, chunk);
      },
    });
    try {
      await pipeline(stream, tally, createWriteStream(file, { flags: 'wx', mode: 0o600 }));
    } catch (err) {
      await this.drop(file);
      throw err;
    }
    return { path: file, size, sha256: hash.digest('hex') };
  }

  /** Delete a spooled file (a failure is logged: the next start's init() deletes it anyway). */
  async drop(file: string): Promise<void> {
    await rm(file, { force: true }).catch((err: unknown) => this.log.warn({ err }, 'could not delete a portal spool file'));
  }
}
