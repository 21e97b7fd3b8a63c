/**
 * IMAP mailbox polling (imapflow), for customers whose order mailbox lives at a provider (Italian PEC mailboxes
 * too). Each mailbox is watched by one instance at a time (a named lease); the watcher keeps IDLE open and checks
 * again at every new message, or every INTAKE_IMAP_POLL_SECONDS where the server cannot push.
 *
 * Each new message is stored durably first, then moved to the processed folder (or flagged where there is none),
 * then its UID is recorded. The store keeps a message once per (UIDVALIDITY, UID) and per Message-ID, so a crash
 * between any two of these steps, a lost lease, or a mailbox rebuilt by its provider never stores a message twice,
 * and nothing is moved away before it is on disk.
 */
import { ImapFlow } from 'imapflow';
import { createHash } from 'node:crypto';
import { uuidv7 } from '../../domain/uuid7.ts';
import { isDeactivated } from '../../customers/active.ts';
import type { Logger } from '../../log.ts';
import type { ImapAccount } from '../../domain/store/mail.ts';
import type { MailChannelStore } from '../../domain/store/ports.ts';
import { openSecret } from '../../auth/secret-box.ts';

export interface ImapDeps {
  store: MailChannelStore;
  log: Logger;
  secretKey?: string;
  maxMailBytes: number;
  pollSeconds: number;
  holder: string;
  onStored: (ids: string[]) => void;
  /** How long a stored message stays held by this instance unless renewed (INTAKE_CLAIM_LEASE_MS; the pipeline renews it). */
  claimMs: number;
}

export interface ImapWatchers {
  close(): Promise<void>;
}

/** Keyword set on stored messages when there is no processed folder to move them to. */
export const STORED_FLAG = '$OrderIntakeStored';
/** Keyword on messages too large to take: the operator sees them in the mailbox, the watcher does not retry them. */
export const TOO_LARGE_FLAG = '$OrderIntakeTooLarge';
/** A provider that is down is tried again after 5 s, doubling up to 5 minutes: no hammering, no long blindness. */
const RETRY_FIRST_MS = 5_000;
const RETRY_MAX_MS = 5 * 60_000;
/** New messages fetched per check; the rest come at the next check, so one check never holds a huge batch. */
const BATCH = 100;

interface Watcher {
  account: ImapAccount;
  stop(): Promise<void>;
}

/**
 * The processed folder's full path, created when missing. Servers that keep folders under a prefix ("INBOX.") or
 * that answer CREATE of an existing folder with a plain NO are why it is looked up when creating fails.
 */
async function processedFolder(c: ImapFlow, name: string): Promise<string> {
  try {
    const created = await c.mailboxCreate(name);
    return created.path;
  } catch (err) {
    const found = (await c.list()).find((b) => b.path === name || b.name === name);
    if (found) return found.path;
    throw err;
  }
}

function watch(deps: ImapDeps, account: ImapAccount, password: string): Watcher {
  const { store } = deps;
  const log = deps.log.child({ imap: account.id, host: account.host, user: account.username });
  let stopped = false;
  let client: ImapFlow | undefined;
  let wake: (() => void) | undefined;
  const pause = (ms: number) => new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    wake = () => {
      clearTimeout(t);
      resolve();
    };
  });

  /** Store, then move or flag, then remember: in that order, so a crash at any point repeats harmlessly. */
  async function check(c: ImapFlow, target: string | undefined): Promise<void> {
    const box = c.mailbox;
    if (!box) return;
    const uidValidity = box.uidValidity.toString();
    const state = await store.getImapAccount(account.customerId);
    let lastUid = state && state.uidValidity === uidValidity ? state.lastUid : 0;
    for (;;) {
      // Messages marked \Deleted (and not yet expunged) were thrown away by someone: not orders.
      const found = await c.search({ uid: `${lastUid + 1}:*`, deleted: false }, { uid: true });
      // "n:*" always names the newest message, even below n; only UIDs past the last one seen are new.
      const uids = (found || []).filter((u) => u > lastUid).sort((a, b) => a - b).slice(0, BATCH);
      if (uids.length === 0) break;
      const metas = await c.fetchAll(uids.join(','), { uid: true, size: true, envelope: true, flags: true }, { uid: true });
      for (const meta of metas.sort((a, b) => a.uid - b.uid)) {
        if (stopped) return;
        const done = meta.flags?.has(STORED_FLAG) || meta.flags?.has(TOO_LARGE_FLAG);
        if (!done && (meta.size ?? 0) > deps.maxMailBytes) {
          log.warn({ uid: meta.uid, bytes: meta.size, max: deps.maxMailBytes }, 'IMAP message too large; left in the mailbox, flagged');
          await c.messageFlagsAdd(String(meta.uid), [TOO_LARGE_FLAG], { uid: true });
        } else if (!done) {
          const msg = await c.fetchOne(String(meta.uid), { uid: true, source: true }, { uid: true });
          const raw = msg ? msg.source : undefined;
          if (!raw) throw new Error(`message UID ${meta.uid} vanished while it was being read`);
          const id = uuidv7();
          const messageId = meta.envelope?.messageId && /^<[^<>\s]{1,250}>$/.test(meta.envelope.messageId) ? meta.envelope.messageId : undefined;
          const saved = await store.saveImapMessage({
            id, customerId: account.customerId, source: 'imap', recipients: [], messageId, raw,
            sha256: createHash('sha256').update(raw).digest('hex'), remote: account.host,
            imap: { accountId: account.id, uidValidity, uid: meta.uid }, receivedAt: new Date().toISOString(),
            claimMs: deps.claimMs, claimBy: deps.holder,
          });
          if (saved === 'stored') {
            log.info({ mail: id, uid: meta.uid, bytes: raw.length }, 'IMAP message stored');
            deps.onStored([id]);
          }
          if (target) await c.messageMove(String(meta.uid), target, { uid: true });
          else await c.messageFlagsAdd(String(meta.uid), ['\\Seen', STORED_FLAG], { uid: true });
        }
        lastUid = meta.uid;
        await store.saveImapState(account.id, { uidValidity, lastUid });
      }
    }
    await store.saveImapState(account.id, { uidValidity, lastUid });
  }

  async function session(): Promise<void> {
    const c = new ImapFlow({
      host: account.host, port: account.port, secure: account.tls, auth: { user: account.username, pass: password },
      logger: false, connectionTimeout: 30_000, greetingTimeout: 30_000, socketTimeout: 10 * 60_000,
      // Without IDLE the client polls; with it, IDLE is restarted now and then so a dead link is noticed.
      missingIdleCommand: 'NOOP', maxIdleTime: Math.max(deps.pollSeconds * 1000, 60_000),
    });
    client = c;
    c.on('error', (err: unknown) => log.warn({ err }, 'IMAP connection error'));
    const closed = new Promise<void>((resolve) => c.once('close', () => resolve()));
    await c.connect();
    const target = account.processedFolder === undefined ? undefined : await processedFolder(c, account.processedFolder);
    await c.mailboxOpen(account.folder);
    // One check at a time, and at most one waiting: notices that arrive during a check are served by the next one.
    let chain: Promise<void> = Promise.resolve();
    let queued = false;
    let failed: unknown;
    const run = () => {
      if (queued) return;
      queued = true;
      chain = chain.then(() => {
        queued = false;
        return check(c, target);
      }).catch((err: unknown) => {
        failed = err;
        c.close();
      });
    };
    c.on('exists', run);
    run();
    const poll = setInterval(run, deps.pollSeconds * 1000);
    await closed;
    clearInterval(poll);
    await chain;
    if (failed && !stopped) throw failed;
  }

  const loop = (async () => {
    for (let attempt = 0; !stopped; attempt++) {
      try {
        await session();
        if (!stopped) log.info('IMAP connection closed; reconnecting');
        attempt = 0;
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        log.warn({ err }, 'IMAP mailbox check failed; will retry');
        await store.getImapAccount(account.customerId).then((s) => s && store.saveImapState(account.id, {
          uidValidity: s.uidValidity, lastUid: s.lastUid, lastError: message.slice(0, 500),
        })).catch(() => undefined);
      }
      if (!stopped) await pause(Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** Math.min(attempt, 10)));
    }
  })();

  return {
    account,
    async stop() {
      stopped = true;
      wake?.();
      try {
        await client?.logout();
      } catch {
        client?.close();
      }
      await loop;
    },
  };
}

export function startImapWatchers(deps: ImapDeps): ImapWatchers {
  const { store, log } = deps;
  const watchers = new Map<string, Watcher>();
  const leaseMs = Math.max(60_000, 3 * deps.pollSeconds * 1000);
  const lease = (a: ImapAccount) => `imap:${a.id}`;
  let closed = false;
  const warned = new Set<string>();

  async function stopWatcher(w: Watcher): Promise<void> {
    watchers.delete(w.account.id);
    await w.stop();
    await store.releaseLease(lease(w.account), deps.holder).catch(() => undefined);
  }

  /** Start watching new mailboxes, stop removed or changed ones, and keep (or lose) the leases. */
  async function refresh(): Promise<void> {
    // A deactivated customer's mailbox is not read: its messages stay at the provider, unread, and are fetched
    // once the customer is reactivated (nothing is lost, nothing is accepted meanwhile).
    const accounts = [];
    for (const a of await store.listImapAccounts()) if (!(await isDeactivated(store, a.customerId))) accounts.push(a);
    const current = new Map(accounts.map((a) => [a.id, a]));
    for (const w of [...watchers.values()]) {
      const now = current.get(w.account.id);
      const changed = !now || now.updatedAt !== w.account.updatedAt;
      if (changed || !(await store.renewLease(lease(w.account), deps.holder, leaseMs))) await stopWatcher(w);
    }
    for (const a of accounts) {
      if (closed || watchers.has(a.id)) continue;
      let password: string;
      try {
        password = openSecret(deps.secretKey, a.passwordEnc, a.customerId);
      } catch (err) {
        if (!warned.has(a.id)) log.error({ imap: a.id, err }, 'cannot watch an IMAP mailbox: its password cannot be opened');
        warned.add(a.id);
        continue;
      }
      if (!(await store.acquireLease(lease(a), deps.holder, leaseMs))) continue;
      log.info({ imap: a.id, host: a.host, user: a.username, folder: a.folder }, 'watching IMAP mailbox');
      watchers.set(a.id, watch(deps, a, password));
    }
  }

  let running = Promise.resolve();
  const tick = () => {
    running = running.then(refresh).catch((err: unknown) => log.error({ err }, 'IMAP mailbox list refresh failed'));
  };
  tick();
  const timer = setInterval(tick, deps.pollSeconds * 1000);
  return {
    async close() {
      closed = true;
      clearInterval(timer);
      await running;
      for (const w of [...watchers.values()]) await stopWatcher(w);
    },
  };
}

/** Log in and open the folder once, so an operator setting a mailbox learns at once whether it works. */
export async function checkImapMailbox(a: Pick<ImapAccount, 'host' | 'port' | 'tls' | 'username' | 'folder'>, password: string): Promise<void> {
  const c = new ImapFlow({
    host: a.host, port: a.port, secure: a.tls, auth: { user: a.username, pass: password }, logger: false,
    connectionTimeout: 20_000, greetingTimeout: 20_000, disableAutoIdle: true,
  });
  c.on('error', () => undefined);
  try {
    await c.connect();
    await c.mailboxOpen(a.folder);
  } finally {
    await c.logout().catch(() => c.close());
  }
}
