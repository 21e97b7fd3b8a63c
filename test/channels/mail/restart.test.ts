// Crash safety: the store is left as a crash at a given instant would leave it (written with the same store calls
// the channel makes), then the service starts again on the same data directory and must finish the work, once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import MailComposer from 'nodemailer/lib/mail-composer';
import { v7 as uuidv7 } from 'uuid';
import { createIntake } from '../../../src/intake/intake.ts';
import { createLogger } from '../../../src/log.ts';
import { openStore } from '../../../src/store/open.ts';
import type { Customer, Store } from '../../../src/domain/store/store.ts';
import { order } from '../../helpers/service.ts';
import { received, startMail, startSink } from './helpers.ts';

async function message(customer: Customer, subject: string, ref: string): Promise<Buffer> {
  return new MailComposer({
    from: 'mario@cliente.it', to: customer.mailbox, subject, messageId: `<${ref}@cliente.it>`,
    attachments: [{ filename: 'o.json', content: JSON.stringify(order(customer.code, ref)) }],
  }).compile().build();
}

/** What the SMTP server commits before it answers 250: the crash comes right after. */
async function storedBeforeCrash(store: Store, customer: Customer, raw: Buffer): Promise<string> {
  const id = uuidv7();
  await store.saveMailMessages([{
    id, customerId: customer.id, source: 'smtp', envelopeFrom: 'mario@cliente.it', recipients: [customer.mailbox], raw,
    sha256: 'x', receivedAt: new Date().toISOString(),
  }]);
  return id;
}

void describe('e-mail after a crash', () => {
  void it('finishes a message stored just before a crash, and one whose first file was stored but not recorded', async () => {
    const first = await startMail();
    await first.t.customer('C001');
    await first.stop();

    // The crash: one message committed (250 sent) and nothing more; another whose attachment had become a
    // submission a moment before the process died, before the part was recorded.
    const store = await openStore(first.config);
    let orphan: string;
    let plain: string;
    let halfway: string;
    try {
      const c = (await store.getCustomerByCode('C001'))!;
      plain = await storedBeforeCrash(store, c, await message(c, 'Salvato e basta', 'R-CRASH-1'));
      halfway = await storedBeforeCrash(store, c, await message(c, 'A metà', 'R-CRASH-2'));
      const intake = createIntake({ store, timeZone: 'Europe/Rome', log: createLogger('silent') });
      orphan = (await intake.receive({
        principal: { customerId: c.id, customerCode: c.code }, channel: 'email', fileName: 'o.json',
        raw: Buffer.from(JSON.stringify(order('C001', 'R-CRASH-2'))), meta: { mail_id: halfway, mail_part: '0' },
      })).id;
    } finally {
      await store.close();
    }

    const sink = await startSink();
    const again = await startMail({ env: { INTAKE_SMTP_RELAY: sink.url }, dataDir: first.t.dataDir });
    try {
      const r1 = await received(sink, (m) => /^Re: Salvato e basta \[esito: OK/.test(m.parsed.subject ?? ''));
      const r2 = await received(sink, (m) => /^Re: A metà \[esito: OK/.test(m.parsed.subject ?? ''));
      assert.match(r1.parsed.text ?? '', /R-CRASH-1\): registrato con numero \d{4}-\d{6}/);
      assert.match(r2.parsed.text ?? '', /R-CRASH-2\): registrato con numero \d{4}-\d{6}/, 'the stored file is reported as registered, not as a duplicate');
      const s = again.t.service.store;
      assert.deepEqual(await s.mailParts(halfway), [{ idx: 0, submissionId: orphan }], 'the stored file was adopted, not received again');
      const c = (await s.getCustomerByCode('C001'))!;
      const mine = (await s.listSubmissions({ customerId: c.id })).filter((x) => x.meta.mail_id === halfway);
      assert.equal(mine.length, 1);
      assert.equal((await s.getMailMessage(plain))?.state, 'done');
      assert.equal(sink.messages.length, 2, 'one reply each');
    } finally {
      await again.close();
      await sink.close();
    }
  });
});
