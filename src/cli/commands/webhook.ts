import type { Command } from 'commander';
import { IntakeError } from '../../domain/errors.ts';
import { addWebhook, requireSubscriber } from '../../handoff/subscribers.ts';
import type { DeliverySummary, Subscriber } from '../../domain/store/handoff.ts';
import { parseLimit, withStore } from '../context.ts';
import { printFields, printJson, printTable, println } from '../output.ts';

function asJson(s: Subscriber): Record<string, unknown> {
  return {
    id: s.id, url: s.url, events: s.events, allow_private: s.allowPrivate, state: s.state, ...(s.connectorId ? { connector: s.connectorId } : {}),
    ...(s.disabledReason ? { disabled_reason: s.disabledReason } : {}), created_at: s.createdAt,
  };
}

function deliveryJson(d: DeliverySummary): Record<string, unknown> {
  return {
    id: d.id, event_id: d.eventId, event_type: d.eventType, state: d.state, attempts: d.attempts, next_attempt_at: d.nextAttemptAt,
    last_status: d.lastStatus, last_error: d.lastError, created_at: d.createdAt, finished_at: d.finishedAt,
  };
}

const STATES = ['pending', 'done', 'failed'] as const;

export function registerWebhookCommands(program: Command): void {
  const webhook = program.command('webhook').description('webhooks: signed POSTs of order events to an ERP/MIS');

  webhook
    .command('add')
    .description('add a webhook and print its signing secret (once)')
    .requiredOption('--url <url>', 'receiver URL (https; http only to a loopback host)')
    .option('--events <types>', 'event types, comma-separated (default: all): ordine.registrato,ordine.rifiutato,ordine.stato_aggiornato')
    .option('--allow-private', 'allow private, loopback and link-local receiver addresses (refused by default)')
    .option('--json', 'print JSON')
    .action(async (opts: { url: string; events?: string; allowPrivate?: boolean; json?: boolean }) => {
      await withStore(async (store, config) => {
        const { webhook: w, secret } = await addWebhook(store, config.secretKey, opts);
        if (opts.json) {
          printJson({ id: w.id, url: w.url, secret, events: w.events });
          return;
        }
        println(`Webhook ${w.id} is active.`);
        println();
        printFields([['URL', w.url], ['Events', w.events.join(', ')], ['Signing secret', secret]]);
        println();
        println('WARNING: the secret is shown only now. Hand it to the receiver\'s developers over a safe channel; they');
        println('verify every delivery with it (docs/customers/webhooks.md).');
      }, { sealing: true });
    });

  webhook
    .command('list')
    .description('list webhooks')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      await withStore(async (store) => {
        const list = await store.listSubscribers({ kind: 'webhook' });
        if (opts.json) printJson(list.map(asJson));
        else if (list.length === 0) println('no webhooks');
        else printTable(['ID', 'URL', 'EVENTS', 'STATE', 'CREATED'], list.map((s) => [s.id, s.url, s.events.join(','), s.state, s.createdAt]));
      });
    });

  webhook
    .command('show <id>')
    .description('show a webhook and how its deliveries stand')
    .option('--json', 'print JSON')
    .action(async (id: string, opts: { json?: boolean }) => {
      await withStore(async (store) => {
        const s = await requireSubscriber(store, id, 'webhook');
        const counts = Object.fromEntries(await Promise.all(STATES.map(async (st) =>
          [st, (await store.listDeliveries({ subscriberId: id, state: st, limit: 1000 })).length] as const)));
        if (opts.json) {
          printJson({ ...asJson(s), deliveries: counts });
          return;
        }
        printFields([
          ['ID', s.id], ['URL', s.url], ['Events', s.events.join(', ')], ['Private addresses', s.allowPrivate ? 'allowed' : 'refused'],
          ['State', s.state], ['Disabled because', s.disabledReason], ['Created', s.createdAt],
          ['Deliveries', `${counts.pending} pending, ${counts.done} done, ${counts.failed} failed (of the last 1000 each)`],
        ]);
      });
    });

  webhook
    .command('deliveries <id>')
    .description('list a webhook\'s deliveries, newest first')
    .option('--state <state>', 'only pending, done or failed')
    .option('--limit <n>', 'at most n rows', parseLimit)
    .option('--json', 'print JSON')
    .action(async (id: string, opts: { state?: string; limit?: number; json?: boolean }) => {
      if (opts.state !== undefined && !(STATES as readonly string[]).includes(opts.state)) {
        throw new IntakeError('VALIDATION', `--state must be one of ${STATES.join(', ')}`);
      }
      await withStore(async (store) => {
        await requireSubscriber(store, id, 'webhook');
        const list = await store.listDeliveries({ subscriberId: id, state: opts.state as DeliverySummary['state'] | undefined, limit: opts.limit });
        if (opts.json) printJson(list.map(deliveryJson));
        else if (list.length === 0) println('no deliveries');
        else {
          printTable(['ID', 'EVENT', 'TYPE', 'STATE', 'ATTEMPTS', 'STATUS', 'LAST ERROR', 'NEXT ATTEMPT'],
            list.map((d) => [d.id, d.eventId, d.eventType, d.state, d.attempts, d.lastStatus, d.lastError, d.state === 'pending' ? d.nextAttemptAt : '']));
        }
      });
    });

  webhook
    .command('replay <id>')
    .description('deliver again now: one delivery (--delivery), or every failed delivery of the webhook')
    .option('--delivery <deliveryId>', 'only this delivery (whatever its state)')
    .option('--json', 'print JSON')
    .action(async (id: string, opts: { delivery?: string; json?: boolean }) => {
      await withStore(async (store) => {
        await requireSubscriber(store, id, 'webhook');
        const n = await store.replayDeliveries(opts.delivery ? { subscriberId: id, deliveryId: opts.delivery } : { subscriberId: id, state: 'failed' });
        if (opts.delivery && n === 0) throw new IntakeError('NOT_FOUND', `webhook ${id} has no delivery ${opts.delivery}`);
        if (opts.json) printJson({ replayed: n });
        else println(`${n} deliveries will be made again.`);
      });
    });

  for (const [name, state, text] of [['disable', 'disabled', 'stop delivering (deliveries wait)'], ['enable', 'active', 'deliver again']] as const) {
    webhook
      .command(`${name} <id>`)
      .description(`${text}`)
      .action(async (id: string) => {
        await withStore(async (store) => {
          await requireSubscriber(store, id, 'webhook');
          await store.setSubscriberState(id, state, state === 'disabled' ? 'disabled by an operator' : undefined);
          println(`Webhook ${id} is ${state === 'active' ? 'active' : 'disabled'}.`);
        });
      });
  }

  webhook
    .command('remove <id>')
    .description('remove a webhook and its deliveries')
    .action(async (id: string) => {
      await withStore(async (store) => {
        await requireSubscriber(store, id, 'webhook');
        await store.removeSubscriber(id);
        println(`Webhook ${id} removed.`);
      });
    });
}
