/**
 * The folders list the customer's 1,000 most recent *files* (FTP and SFTP uploads). Orders the same customer sends
 * by REST, SOAP, e-mail or the portal are not files of this tree and must not push its files out of the listing:
 * a management system that uploads by SFTP and also posts orders by REST must still find its outcome files.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { LIMITS } from '../../../src/channels/files/limits.ts';
import { order, waitFor, type TestCustomer } from '../../helpers/service.ts';
import { curl, startFiles, type FilesHarness } from './helpers.ts';

let h: FilesHarness;
let c1: TestCustomer;

before(async () => {
  h = await startFiles();
  c1 = await h.t.customer('C001');
});
after(() => h.close());

test('an SFTP file and its outcome stay listed and downloadable after more than 1,000 REST orders of the same customer', async () => {
  const up = await curl(['-T', '-', `sftp://127.0.0.1:${h.sftpPort}/ordini/notturno.json`], c1.ftpUser, c1.ftpPassword,
    Buffer.from(JSON.stringify(order('C001', 'WIN-FILE-1'))));
  assert.equal(up.code, 0, up.stderr);
  await h.processed('C001', 'notturno.json');

  // The same customer's REST bodies (received only: judging them is not what this is about).
  const customer = (await h.t.service.store.getCustomerByCode('C001'))!;
  const principal = { customerId: customer.id, customerCode: customer.code };
  for (let i = 0; i < LIMITS.listedPerFolder; i += 50) {
    await Promise.all(Array.from({ length: 50 }, (_, j) => h.t.service.intake.receive({
      principal, channel: 'rest', mediaType: 'application/json', singleOrder: true,
      raw: Buffer.from(JSON.stringify(order('C001', `WIN-REST-${i + j}`))),
    })));
  }

  const listing = await curl(['-l', `sftp://127.0.0.1:${h.sftpPort}/ordini/esiti/`], c1.ftpUser, c1.ftpPassword);
  assert.equal(listing.code, 0, listing.stderr);
  assert.ok(listing.stdout.split('\n').includes('notturno.json.esito.txt'), `esiti lists: ${JSON.stringify(listing.stdout)}`);
  const text = await waitFor(async () => {
    const r = await curl([`sftp://127.0.0.1:${h.sftpPort}/ordini/esiti/notturno.json.esito.txt`], c1.ftpUser, c1.ftpPassword);
    return r.code === 0 ? r.stdout : undefined;
  }, 10_000, 'the outcome file downloaded');
  assert.match(text, /Esito: OK - 1 ordine accettato/);
});
