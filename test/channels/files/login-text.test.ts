/**
 * A user name or password holding a NUL or half a UTF-16 surrogate pair is a failed login on FTP (530) and SFTP
 * (authentication refused), on SQLite and PostgreSQL: never a database error (PostgreSQL refuses such text, which
 * made FTP answer "servizio non disponibile" and logged an error at every try). The right password followed by a NUL
 * is wrong too (scrypt's HMAC would read it as the password itself).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAuthenticator } from '../../../src/auth/authenticator.ts';
import { createSchema, PG_SKIP, testDatabaseUrl } from '../../store/pg-schema.ts';
import type { TestCustomer } from '../../helpers/service.ts';
import { ftpClient, rawFtp, ssh2Sftp, startFiles, type FilesHarness } from './helpers.ts';

const STORES: [string, string | false][] = [['sqlite', false], ['postgres', PG_SKIP]];

for (const [name, skip] of STORES) {
  void describe(`login text (${name})`, { skip }, () => {
    let h: FilesHarness;
    let c1: TestCustomer;
    let drop: (() => Promise<void>) | undefined;
    const storeErrors: unknown[] = [];

    before(async () => {
      let env: Record<string, string> = {};
      if (name === 'postgres') {
        const schema = await createSchema(testDatabaseUrl!, 'login_text');
        drop = () => schema.drop();
        env = { INTAKE_DATABASE_URL: schema.url };
      }
      h = await startFiles(env);
      c1 = await h.t.customer('C001');
      // What the log would show as "login check failed": the credential lookup failing in the database.
      const store = h.t.service.store;
      const find = store.findCredential.bind(store);
      store.findCredential = async (...args) => {
        try {
          return await find(...args);
        } catch (err) {
          storeErrors.push(err);
          throw err;
        }
      };
    });
    after(async () => {
      await h?.close();
      await drop?.();
    });

    // Four tries in all: the fifth failure from 127.0.0.1 would lock the address out.
    void it('refuses a NUL in the user name or password with 530 on FTP, and refuses it on SFTP', async () => {
      // basic-ftp will not send a control character: a bare control connection does, as an attacker's would.
      for (const [user, password] of [[`${c1.ftpUser}\0x`, c1.ftpPassword], [c1.ftpUser, `${c1.ftpPassword}\0`]]) {
        const ftp = await rawFtp(h.ftpPort);
        try {
          assert.match(await ftp.send(`USER ${user}`), /^331 /);
          assert.match(await ftp.send(`PASS ${password}`), /^530 Utente o password errati/);
        } finally {
          ftp.socket.destroy();
        }
      }
      await assert.rejects(ssh2Sftp(h.sftpPort, `\0${c1.ftpUser}`, c1.ftpPassword), /authentication methods failed/i);
      await assert.rejects(ssh2Sftp(h.sftpPort, c1.ftpUser, `\0${c1.ftpPassword}`), /authentication methods failed/i);
      assert.deepEqual(storeErrors, []);
      // Still served: the right credentials log in.
      const ftp = await ftpClient(h.ftpPort, c1.ftpUser, c1.ftpPassword);
      ftp.close();
    });

    // Over the wire a client's text arrives as UTF-8, which cannot carry half a pair: the authenticator is where
    // such a string could still come in.
    void it('refuses half a surrogate pair or a NUL in the user name or password at the authenticator, without a database error', async () => {
      const auth = createAuthenticator(h.t.service.store);
      assert.equal(await auth.password(`${c1.ftpUser}\ud83c`, c1.ftpPassword), undefined);
      assert.equal(await auth.password(`\udc00${c1.ftpUser}`, c1.ftpPassword), undefined);
      assert.equal(await auth.password(c1.ftpUser, `${c1.ftpPassword}\ud83c`), undefined);
      assert.equal(await auth.password(`${c1.ftpUser}\0`, c1.ftpPassword), undefined);
      assert.deepEqual(storeErrors, []);
      assert.ok(await auth.password(c1.ftpUser, c1.ftpPassword), 'the right credentials still pass');
    });
  });
}
