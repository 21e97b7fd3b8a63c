// STARTTLS: offered when a certificate is configured (INTAKE_TLS_CERT/KEY, shared with FTP), absent otherwise.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import nodemailer from 'nodemailer';
import { order, tempDir } from '../../helpers/service.ts';
import { converse, startMail } from './helpers.ts';

function selfSigned(): { cert: string; key: string; dir: string } {
  const dir = tempDir('intake-cert-');
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  const r = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=localhost', '-keyout', key, '-out', cert], { encoding: 'utf8', timeout: 20_000 });
  assert.equal(r.status, 0, r.stderr);
  return { cert, key, dir };
}

void describe('STARTTLS', () => {
  void it('is offered with a certificate, and a message sent over it is stored', async () => {
    const { cert, key, dir } = selfSigned();
    const h = await startMail({ env: { INTAKE_TLS_CERT: cert, INTAKE_TLS_KEY: key } });
    try {
      const c = await h.t.customer('C001');
      const [, ehlo] = await converse(h.smtpPort, ['EHLO client.test\r\n', 'QUIT\r\n']);
      assert.match(ehlo!, /^250[- ]STARTTLS\r$/m);
      const secure = nodemailer.createTransport({ host: '127.0.0.1', port: h.smtpPort, secure: false, requireTLS: true, tls: { rejectUnauthorized: false } });
      try {
        const info = await secure.sendMail({
          from: 'mario@cliente.it', to: c.mailbox, subject: 'Cifrato', attachments: [{ filename: 'o.json', content: JSON.stringify(order('C001', 'T-TLS-1')) }],
        });
        assert.match(info.response, /^250 /);
      } finally {
        secure.close();
      }
      assert.equal((await h.finished('C001', 'Cifrato')).result?.esito, 'ok');
    } finally {
      await h.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  void it('is not offered without a certificate', async () => {
    const h = await startMail();
    try {
      const [, ehlo] = await converse(h.smtpPort, ['EHLO client.test\r\n', 'QUIT\r\n']);
      assert.doesNotMatch(ehlo!, /STARTTLS/);
      assert.match(ehlo!, /^250[- ]SIZE 26214400\r$/m, 'the default limit, 25 MiB, is announced');
    } finally {
      await h.close();
    }
  });
});
