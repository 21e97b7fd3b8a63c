/**
 * E-mail commands: the reply queue (`replies list|show|retry`), the messages received (`mail list`), and a
 * customer's IMAP mailbox (`customer imap set|show|remove`). The IMAP password is read from stdin or from a named
 * environment variable, never from the command line (where `ps` and the shell history would keep it), and is stored
 * sealed with INTAKE_SECRET_KEY.
 */
import { Option, type Command } from 'commander';
import { uuidv7 } from '../../domain/uuid7.ts';
import { checkImapMailbox } from '../../channels/mail/imap.ts';
import { sealSecret } from '../../auth/secret-box.ts';
import { requireCustomerByCode } from '../../customers/find.ts';
import { IntakeError } from '../../domain/errors.ts';
import type { ImapAccount, MailState, ReplyState } from '../../domain/store/mail.ts';
import { DEFAULT_LIMIT, parseLimit, withStore } from '../context.ts';
import { clean, printFields, printJson, printTable, println } from '../output.ts';

const REPLY_STATES: readonly ReplyState[] = ['pending', 'sent', 'failed'];
const MAIL_STATES: readonly MailState[] = ['received', 'done'];
/** A password is a line, not a file: anything longer on stdin is a mistake. */
const MAX_PASSWORD = 1024;

async function readPassword(opts: { passwordStdin?: boolean; passwordEnv?: string }): Promise<string> {
  if (opts.passwordEnv) {
    const v = process.env[opts.passwordEnv];
    if (!v) throw new IntakeError('VALIDATION', `environment variable ${opts.passwordEnv} is not set or empty`);
    return v;
  }
  if (!opts.passwordStdin) throw new IntakeError('VALIDATION', 'give the password with --password-stdin or --password-env NAME');
  let text = '';
  for await (const chunk of process.stdin) {
    text += String(chunk);
    if (text.length > MAX_PASSWORD) throw new IntakeError('VALIDATION', `the password on stdin is longer than ${MAX_PASSWORD} characters`);
  }
  const line = text.replace(/\r?\n$/, '');
  if (!line || /[\r\n]/.test(line)) throw new IntakeError('VALIDATION', 'stdin must hold the password on one line');
  return line;
}

function accountView(a: ImapAccount, code: string): Record<string, unknown> {
  return {
    codice_cliente: code, host: a.host, port: a.port, tls: a.tls, user: a.username, folder: a.folder,
    processed_folder: a.processedFolder ?? null, after_storing: a.processedFolder ? `move to ${a.processedFolder}` : 'flag \\Seen $OrderIntakeStored',
    trusted_authserv_id: a.authservId ?? null, uidvalidity: a.uidValidity ?? null, last_uid: a.lastUid, last_checked_at: a.lastCheckedAt ?? null, last_error: a.lastError ?? null,
  };
}

function parsePort(v: string): number {
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < 1 || n > 65535) throw new IntakeError('VALIDATION', `--port must be 1 to 65535, got "${v}"`);
  return n;
}

function registerImap(program: Command): void {
  const customer = program.commands.find((c) => c.name() === 'customer') ?? program.command('customer').description('customers');
  const imap = customer.command('imap').description("a customer's IMAP order mailbox (at a provider, PEC included)");

  imap
    .command('set')
    .description('watch an IMAP mailbox for this customer\'s orders (replaces an earlier one); checks the login first')
    .requiredOption('--code <code>', 'customer code')
    .requiredOption('--host <host>', 'IMAP server')
    .option('--port <port>', 'IMAP port (default 993 with TLS, 143 without)', parsePort)
    .option('--no-tls', 'connect in clear and upgrade with STARTTLS when offered (port 143)')
    .requiredOption('--user <user>', 'IMAP user name')
    .option('--password-stdin', 'read the password from stdin (one line)')
    .option('--password-env <name>', 'read the password from this environment variable')
    .option('--folder <folder>', 'folder watched for orders', 'INBOX')
    .option('--processed-folder <folder>', 'where stored messages are moved (created if missing)', 'Elaborati')
    .option('--flag-only', 'do not move stored messages: flag them \\Seen and $OrderIntakeStored')
    .option('--authserv-id <id>', "trust the provider's Authentication-Results (SPF) only under this name, e.g. mx.provider.it")
    .option('--no-check', 'store the settings without logging in first')
    .option('--json', 'print JSON')
    .action(async (opts: {
      code: string; host: string; port?: number; tls: boolean; user: string; passwordStdin?: boolean; passwordEnv?: string;
      folder: string; processedFolder: string; flagOnly?: boolean; check: boolean; json?: boolean; authservId?: string;
    }) => {
      const password = await readPassword(opts);
      await withStore(async (store, config) => {
        const c = await requireCustomerByCode(store, opts.code);
        const settings = {
          host: opts.host.trim(), port: opts.port ?? (opts.tls ? 993 : 143), tls: opts.tls, username: opts.user, folder: opts.folder,
          processedFolder: opts.flagOnly ? undefined : opts.processedFolder,
          ...(opts.authservId ? { authservId: opts.authservId.trim() } : {}),
        };
        const passwordEnc = sealSecret(config.secretKey, password, c.id);
        if (opts.check) {
          await checkImapMailbox(settings, password).catch((e: unknown) => {
            const detail = (e as { responseText?: string }).responseText ?? (e instanceof Error ? e.message : String(e));
            throw new IntakeError('VALIDATION', `cannot log in to ${settings.host}:${settings.port} and open "${settings.folder}": ${detail} (use --no-check to store it anyway)`);
          });
        }
        const a = await store.setImapAccount({ id: uuidv7(), customerId: c.id, passwordEnc, ...settings });
        if (opts.json) printJson(accountView(a, c.code));
        // The delay is the running service's INTAKE_IMAP_POLL_SECONDS, which this command cannot see (its own
        // environment may differ): named, not quoted as a number.
        else println(`Customer ${c.code}: IMAP mailbox ${a.username}@${a.host}:${a.port} (${a.folder}) saved; a running service starts watching it when it next re-reads its mailbox list (every INTAKE_IMAP_POLL_SECONDS of that service, 60 s by default).`);
      }, { sealing: true });
    });

  imap
    .command('show')
    .description("the customer's IMAP mailbox and what the watcher last saw")
    .requiredOption('--code <code>', 'customer code')
    .option('--json', 'print JSON')
    .action(async (opts: { code: string; json?: boolean }) => {
      await withStore(async (store) => {
        const c = await requireCustomerByCode(store, opts.code);
        const a = await store.getImapAccount(c.id);
        if (!a) throw new IntakeError('NOT_FOUND', `customer ${c.code} has no IMAP mailbox`);
        if (opts.json) printJson(accountView(a, c.code));
        else printFields(Object.entries(accountView(a, c.code)).map(([k, v]) => [k, v === null ? '' : String(v)]));
      });
    });

  imap
    .command('remove')
    .description('stop watching the customer\'s IMAP mailbox')
    .requiredOption('--code <code>', 'customer code')
    .action(async (opts: { code: string }) => {
      await withStore(async (store) => {
        const c = await requireCustomerByCode(store, opts.code);
        if (!(await store.removeImapAccount(c.id))) throw new IntakeError('NOT_FOUND', `customer ${c.code} has no IMAP mailbox`);
        println(`Customer ${c.code}: IMAP mailbox removed.`);
      });
    });
}

export function registerMailCommands(program: Command): void {
  const replies = program.command('replies').description('outgoing e-mails (replies to orders, status notifications): queued, sent, or given up');

  replies
    .command('list')
    .description('list reply e-mails, newest first (without INTAKE_SMTP_RELAY they stay pending here)')
    .addOption(new Option('--state <state>', 'only replies in this state').choices(REPLY_STATES))
    .option('--limit <n>', 'at most n replies', parseLimit, DEFAULT_LIMIT)
    .option('--json', 'print JSON')
    .action(async (opts: { state?: ReplyState; limit: number; json?: boolean }) => {
      await withStore(async (store) => {
        const list = await store.listReplies({ state: opts.state, limit: opts.limit });
        if (opts.json) printJson(list);
        else if (list.length === 0) println('no replies');
        else printTable(['ID', 'KIND', 'CREATED', 'TO', 'STATE', 'ATTEMPTS', 'SUBJECT', 'LAST ERROR'],
          list.map((r) => [r.id, r.kind, r.createdAt, r.recipient, r.state, r.attempts, r.subject, r.lastError]));
      });
    });

  replies
    .command('show <id>')
    .description('a reply e-mail as it is (or was) sent')
    .option('--raw', 'write only the message bytes (RFC 5322), unchanged')
    .action(async (id: string, opts: { raw?: boolean }) => {
      await withStore(async (store) => {
        const r = await store.getReply(id);
        if (!r) throw new IntakeError('NOT_FOUND', `no reply with id ${id}`);
        if (opts.raw) {
          await new Promise<void>((resolve, reject) => process.stdout.write(r.raw, (err) => (err ? reject(err) : resolve())));
          return;
        }
        printFields([['id', r.id], ['kind', r.kind], ['message', r.mailId], ['order', r.orderId], ['to', r.recipient], ['state', r.state], ['attempts', r.attempts],
          ['created at', r.createdAt], ['next attempt', r.state === 'pending' ? r.nextAttemptAt : undefined], ['sent at', r.sentAt],
          ['last error', r.lastError]]);
        println();
        println(clean(r.raw.toString('utf8')));
      });
    });

  replies
    .command('retry <id>')
    .description('send a failed (or pending) reply again as soon as the service can')
    .action(async (id: string) => {
      await withStore(async (store) => {
        if (!(await store.retryReply(id))) throw new IntakeError('NOT_FOUND', `no reply ${id} waiting to be sent (unknown, or already sent)`);
        println(`reply ${id} will be sent at the next attempt of the running service`);
      });
    });

  program
    .command('mail')
    .description('e-mail messages received')
    .command('list')
    .description('list received messages, newest first, with what became of them')
    .option('--code <code>', 'only this customer\'s messages')
    .addOption(new Option('--state <state>', 'only messages in this state').choices(MAIL_STATES))
    .option('--limit <n>', 'at most n messages', parseLimit, DEFAULT_LIMIT)
    .option('--json', 'print JSON')
    .action(async (opts: { code?: string; state?: MailState; limit: number; json?: boolean }) => {
      await withStore(async (store) => {
        const customerId = opts.code ? (await requireCustomerByCode(store, opts.code)).id : undefined;
        const list = await store.listMailMessages({ customerId, state: opts.state, limit: opts.limit });
        if (opts.json) printJson(list);
        else if (list.length === 0) println('no messages');
        else printTable(['ID', 'RECEIVED', 'SOURCE', 'FROM', 'STATE', 'ESITO', 'FILES', 'REPLY', 'ATTEMPTS', 'UNREADABLE'],
          list.map((m) => [m.id, m.receivedAt, m.source, m.envelopeFrom === '' ? '<>' : m.envelopeFrom, m.state, m.result?.esito,
            m.result?.submissions.length, m.result?.noReply ? `none: ${m.result.noReply}` : m.result?.replyId, m.attempts, m.result?.unreadable]));
      });
    });

  registerImap(program);
}
