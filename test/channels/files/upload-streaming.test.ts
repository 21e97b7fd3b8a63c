/**
 * Uploads copied into the store while they stream (issue 16 target 5; upload-stager.ts, migration 022), through the
 * real service with real clients (ssh2 for SFTP, basic-ftp for FTP): a large upload's pieces are staged before its
 * end, the submission saved at the end adopts them (its id is the upload's), and the bytes read back, from the store
 * and over SFTP, are the ones sent; an upload cut before its end leaves no submission and no pieces behind.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { Store } from '../../../src/domain/store/store.ts';
import { UPLOAD_PIECE_BYTES } from '../../../src/store/common/upload-pieces.ts';
import { startTestService, waitFor, type TestCustomer, type TestService } from '../../helpers/service.ts';
import { createSchema, PG_SKIP, testDatabaseUrl } from '../../store/pg-schema.ts';
import { ftpClient, ftpDownload, p, pipelinedPut, ssh2Sftp, startFiles, type FilesHarness } from './helpers.ts';

let h: FilesHarness;
let c1: TestCustomer;
const tmp = mkdtempSync(path.join(tmpdir(), 'streamed-'));
/** Every stageUploadPieces and discardStagedUpload the service made, in order. */
const staged: { id: string; offset: number; length: number }[] = [];
const discarded: string[] = [];
/** A moment after every piece the tests write: a sweep with it deletes every upload no submission adopted. */
const later = () => new Date(Date.now() + 3_600_000).toISOString();

before(async () => {
  h = await startFiles();
  c1 = await h.t.customer('C001');
  const store: Store = h.t.service.store;
  const stage = store.stageUploadPieces.bind(store);
  const discard = store.discardStagedUpload.bind(store);
  store.stageUploadPieces = async (id, piece) => {
    await stage(id, piece);
    staged.push({ id, offset: piece.offset, length: piece.length });
  };
  store.discardStagedUpload = async (id) => {
    discarded.push(id);
    await discard(id);
  };
});
after(async () => {
  await h.close();
  rmSync(tmp, { recursive: true, force: true });
});

async function submissionNamed(fileName: string) {
  const customer = (await h.t.service.store.getCustomerByCode('C001'))!;
  return (await h.t.service.store.listSubmissions({ customerId: customer.id, limit: 100 })).find((s) => s.fileName === fileName);
}

/** The upload `id` was staged in whole pieces from its start, one after the other. */
function assertStagedInOrder(id: string): void {
  const mine = staged.filter((s) => s.id === id);
  assert.ok(mine.length >= 1, `pieces were copied into the store before the end: ${id} ${JSON.stringify(staged)}`);
  let next = 0;
  for (const s of mine) {
    assert.equal(s.offset, next);
    assert.equal(s.length % UPLOAD_PIECE_BYTES, 0);
    next += s.length;
  }
}

test('SFTP: a large upload is copied into the store as it arrives, adopted at its CLOSE, and reads back identical', async () => {
  const bytes = randomBytes(9 * UPLOAD_PIECE_BYTES + 54_321);
  const { sftp, conn } = await ssh2Sftp(h.sftpPort, c1.ftpUser, c1.ftpPassword);
  try {
    await pipelinedPut(sftp, bytes, '/ordini/grande-sftp.bin');
    // Acknowledged: the submission is there, under the id its pieces were staged with.
    const s = await submissionNamed('grande-sftp.bin');
    assert.ok(s, 'registered when the CLOSE was acknowledged');
    assertStagedInOrder(s.id);
    assert.ok((await h.t.service.store.getSubmission(s.id))!.raw.equals(bytes), 'the store holds the bytes sent');
    assert.equal(s.size, bytes.length);
    // Judged (random bytes are no order file), then read over SFTP from where the tree shows it.
    await h.processed('C001', 'grande-sftp.bin');
    const back = await p<Buffer>((cb) => sftp.readFile('/ordini/scartati/grande-sftp.bin', cb));
    assert.ok(back.equals(bytes), 'read back over SFTP byte for byte');
    assert.equal(await h.t.service.store.sweepStagedUploads(later()), 0, 'no piece left unadopted');
  } finally {
    conn.end();
  }
});

test('FTP: the same upload path copies a large upload as it arrives and adopts it at the 226', async () => {
  const bytes = randomBytes(6 * UPLOAD_PIECE_BYTES + 7);
  const client = await ftpClient(h.ftpPort, c1.ftpUser, c1.ftpPassword);
  try {
    await client.uploadFrom(Readable.from([bytes]), '/ordini/grande-ftp.bin');
    const s = await submissionNamed('grande-ftp.bin');
    assert.ok(s, 'registered when the 226 came');
    assertStagedInOrder(s.id);
    await h.processed('C001', 'grande-ftp.bin');
    assert.ok((await ftpDownload(client, '/ordini/scartati/grande-ftp.bin')).equals(bytes));
    assert.equal(await h.t.service.store.sweepStagedUploads(later()), 0);
  } finally {
    client.close();
  }
});

test('SFTP: an upload cut after some pieces were copied leaves no submission and no pieces', async () => {
  const before = staged.length;
  const { sftp, conn } = await ssh2Sftp(h.sftpPort, c1.ftpUser, c1.ftpPassword);
  conn.on('error', () => undefined);
  const handle = await p<Buffer>((cb) => sftp.open('/ordini/tagliato.bin', 'w', cb));
  const piece = randomBytes(UPLOAD_PIECE_BYTES / 2);
  for (let at = 0; at < 6 * UPLOAD_PIECE_BYTES; at += piece.length) await p((cb) => sftp.write(handle, piece, 0, piece.length, at, cb));
  const id = await waitFor(() => staged.at(-1)?.id !== undefined && staged.length > before ? staged.at(-1)!.id : undefined, 10_000, 'a piece staged');
  conn.end();
  await waitFor(() => (discarded.includes(id) ? true : undefined), 10_000, 'the cut upload\'s pieces to be discarded');
  assert.equal(await submissionNamed('tagliato.bin'), undefined);
  assert.equal(await h.t.service.store.getSubmission(id), undefined);
  assert.equal(await h.t.service.store.sweepStagedUploads(later()), 0, 'discarded already: nothing for the sweep');
});

test('PostgreSQL: an upload streamed into one instance is read back whole over SFTP from another', { skip: PG_SKIP }, async () => {
  const schema = await createSchema(testDatabaseUrl!);
  const env = { INTAKE_SFTP_PORT: '0', INTAKE_FTP_PORT: 'off', INTAKE_DATABASE_URL: schema.url };
  const a = await startTestService(env);
  let b: TestService | undefined;
  const stagedHere: string[] = [];
  try {
    const c = await a.customer('C001');
    const stage = a.service.store.stageUploadPieces.bind(a.service.store);
    a.service.store.stageUploadPieces = async (id, piece) => {
      await stage(id, piece);
      stagedHere.push(id);
    };
    const bytes = randomBytes(7 * UPLOAD_PIECE_BYTES + 99);
    const one = await ssh2Sftp(a.service.ports.sftp!, c.ftpUser, c.ftpPassword);
    try {
      await pipelinedPut(one.sftp, bytes, '/ordini/condiviso.bin');
    } finally {
      one.conn.end();
    }
    const customer = (await a.service.store.getCustomerByCode('C001'))!;
    const s = await waitFor(async () => (await a.service.store.listSubmissions({ customerId: customer.id })).find((x) => x.state === 'processed'), 20_000, 'processed');
    assert.ok(stagedHere.includes(s.id), 'copied into the database while it arrived');
    assert.equal(s.size, bytes.length);
    b = await startTestService(env);
    const two = await ssh2Sftp(b.service.ports.sftp!, c.ftpUser, c.ftpPassword);
    try {
      const back = await p<Buffer>((cb) => two.sftp.readFile('/ordini/scartati/condiviso.bin', cb));
      assert.ok(back.equals(bytes), 'the other instance reads the same bytes');
    } finally {
      two.conn.end();
    }
  } finally {
    await b?.close();
    await a.close();
    await schema.drop();
  }
});
