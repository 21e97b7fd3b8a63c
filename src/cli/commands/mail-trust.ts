/**
 * Who may order by e-mail and what was held back: `customer mail-policy <code>` (the customer's sender policy) and
 * `mail held list|release|discard`. A release is picked up by the running service at its next sweep
 * (INTAKE_SWEEP_INTERVAL_MS), which registers the message's orders and answers it.
 */
import { Option, type Command } from 'commander';
import { requireCustomerByCode } from '../../customers/find.ts';
import { decideHold, HOLD_REASONS, POLICY_MODES, setPolicy } from '../../customers/mail-senders.ts';
import type { HoldState, MailHold } from '../../domain/store/mail-trust.ts';
import type { Store } from '../../domain/store/store.ts';
import { DEFAULT_LIMIT, parseLimit, withStore } from '../context.ts';
import { printFields, printJson, printTable, println } from '../output.ts';

const HOLD_STATES: readonly HoldState[] = ['held', 'released', 'discarded', 'retried'];
const collect = (v: string, prev: string[] = []) => [...prev, v];

async function holdView(store: Store, h: MailHold, codes: Map<string, string>): Promise<Record<string, unknown>> {
  let code = codes.get(h.customerId);
  if (code === undefined) {
    code = (await store.getCustomer(h.customerId))?.code ?? h.customerId;
    codes.set(h.customerId, code);
  }
  return {
    id: h.mailId, customer: code, sender: h.sender ?? null, reason: h.reason, detail: h.detail ?? null, held_at: h.heldAt,
    state: h.state, decided_by: h.decidedBy ?? null, decided_at: h.decidedAt ?? null, authentication_results: h.auth?.header ?? null,
  };
}

export function registerMailTrustCommands(program: Command): void {
  const customer = program.commands.find((c) => c.name() === 'customer') ?? program.command('customer');
  customer
    .command('mail-policy <code>')
    .description('who may order by e-mail for this customer: show it, or change it with --mode, --allow, --remove')
    .addOption(new Option('--mode <mode>', 'qualsiasi: anyone; elenco: only the allow-list; autenticato: the allow-list and DMARC pass').choices(POLICY_MODES))
    .option('--allow <entry>', 'allow an address (ordini@cliente.it) or a domain (@cliente.it); repeatable', collect)
    .option('--remove <entry>', 'remove an entry from the allow-list; repeatable', collect)
    .addOption(new Option('--notify-held <on|off>', "tell the customer (its notification address, else the allow-list's first address) of each message held in its name").choices(['on', 'off']))
    .option('--json', 'print JSON')
    .action(async (code: string, opts: { mode?: string; allow?: string[]; remove?: string[]; notifyHeld?: 'on' | 'off'; json?: boolean }) => {
      await withStore(async (store) => {
        const c = await requireCustomerByCode(store, code);
        const changing = opts.mode !== undefined || opts.allow !== undefined || opts.remove !== undefined || opts.notifyHeld !== undefined;
        const change = { ...opts, notifyHeld: opts.notifyHeld === undefined ? undefined : opts.notifyHeld === 'on' };
        const p = changing ? await setPolicy(store, c, change, 'cli') : await store.getMailPolicy(c.id);
        if (opts.json) printJson({ codice_cliente: c.code, mode: p.mode, allow: p.allow, notify_held: p.notifyHeld, updated_at: p.updatedAt ?? null });
        else printFields([['customer', c.code], ['mode', p.mode], ['allow', p.allow.join(' ') || '(empty)'], ['notify held', p.notifyHeld ? 'on' : 'off'], ['updated at', p.updatedAt]]);
      });
    });

  const mail = program.commands.find((c) => c.name() === 'mail') ?? program.command('mail');
  const held = mail.command('held').description('messages held by the sender checks: not registered, not answered');
  held
    .command('list')
    .description('held messages, newest first')
    .option('--code <code>', "only this customer's")
    .addOption(new Option('--state <state>', 'held (default), or decided ones').choices(HOLD_STATES).default('held'))
    .option('--limit <n>', 'at most n', parseLimit, DEFAULT_LIMIT)
    .option('--json', 'print JSON')
    .action(async (opts: { code?: string; state: HoldState; limit: number; json?: boolean }) => {
      await withStore(async (store) => {
        const customerId = opts.code ? (await requireCustomerByCode(store, opts.code)).id : undefined;
        const codes = new Map<string, string>();
        const list = await Promise.all((await store.listMailHolds({ state: opts.state, customerId, limit: opts.limit })).map((h) => holdView(store, h, codes)));
        if (opts.json) printJson(list);
        else if (list.length === 0) println('no held messages');
        else printTable(['ID', 'HELD AT', 'CUSTOMER', 'SENDER', 'REASON', 'DETAIL'],
          list.map((h) => [h.id, h.held_at, h.customer, h.sender, HOLD_REASONS[h.reason as string] ?? h.reason, h.detail]));
      });
    });
  held
    .command('release <id>')
    .description('judge the message as if its sender had passed: its orders are registered and it is answered')
    .action(async (id: string) => {
      await withStore(async (store) => {
        await decideHold(store, id, 'released', 'cli');
        println(`message ${id} released: the running service registers it at its next sweep`);
      });
    });
  held
    .command('discard <id>')
    .description('keep the message as it is: nothing registered, nobody answered')
    .action(async (id: string) => {
      await withStore(async (store) => {
        await decideHold(store, id, 'discarded', 'cli');
        println(`message ${id} discarded`);
      });
    });
}
