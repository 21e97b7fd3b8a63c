/**
 * A file the service gave up on after repeated processing failures is marked `failed` with an outcome saying so
 * (docs/operators/limits-and-attacks.md), "which the channel renders as usual": for FTP/SFTP it leaves /ordini for
 * scartati and its outcome files appear in esiti, instead of sitting in /ordini as "being processed" for ever.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Outcome } from '../../../src/domain/types.ts';
import type { TestCustomer } from '../../helpers/service.ts';
import { p, ssh2Sftp, startFiles, type FilesHarness } from './helpers.ts';

let h: FilesHarness;
let c1: TestCustomer;

before(async () => {
  // No sweep after the one at start: the submission below stays as the test leaves it.
  h = await startFiles({ INTAKE_SWEEP_INTERVAL_MS: String(60 * 60_000) });
  c1 = await h.t.customer('C001');
});
after(() => h.close());

test('a file given up as failed is listed in scartati with its outcome files, not left in /ordini', async () => {
  const store = h.t.service.store;
  const customer = (await store.getCustomerByCode('C001'))!;
  // Received by SFTP, then given up as the sweeper gives up a poison submission (intake.ts, processSwept).
  const raw = Buffer.from('{"codice_cliente":"C001"}');
  const saved = await store.saveSubmission({
    id: randomUUID(), customerId: customer.id, customerCode: customer.code, channel: 'sftp', fileName: 'avvelenato.json', raw,
    meta: {}, singleOrder: false, sha256: randomUUID().replace(/-/g, ''), receivedAt: new Date().toISOString(),
  });
  const outcome: Outcome = {
    submissionId: saved.id, esito: 'errore', orders: [],
    fileError: { code: 'INTERNAL', message: ["Il file non è stato elaborato: l'elaborazione non è riuscita per 4 volte."] },
  };
  assert.equal(await store.completeSubmission(saved.id, 'failed', outcome, new Date().toISOString()), true);

  const { sftp, conn } = await ssh2Sftp(h.sftpPort, c1.ftpUser, c1.ftpPassword);
  try {
    const names = async (dir: string) => (await p<{ filename: string }[]>((cb) => sftp.readdir(dir, cb))).map((e) => e.filename);
    assert.ok(!(await names('/ordini')).includes('avvelenato.json'), 'no longer "being processed"');
    assert.ok((await names('/ordini/scartati')).includes('avvelenato.json'));
    assert.ok((await names('/ordini/esiti')).includes('avvelenato.json.esito.txt'));
    const text = (await p<Buffer>((cb) => sftp.readFile('/ordini/esiti/avvelenato.json.esito.txt', cb))).toString('utf8');
    assert.match(text, /l'elaborazione non è riuscita per 4 volte/);
  } finally {
    conn.end();
  }
});
