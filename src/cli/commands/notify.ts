/**
 * `order-intake customer notify set|show`: e-mail notifications of production status changes, per customer
 * (docs/operators/notifications.md). Off until an operator turns them on.
 */
import type { Command } from 'commander';
import { IntakeError } from '../../domain/errors.ts';
import { setNotifications, showNotifications } from '../../handoff/notify-settings.ts';
import type { Customer } from '../../domain/store/store.ts';
import type { NotifySettings } from '../../domain/store/notifications.ts';
import { audit } from '../../operators/audit.ts';
import { withStore } from '../context.ts';
import { printFields, printJson, println } from '../output.ts';

function print(customer: Customer, s: NotifySettings, json: boolean | undefined): void {
  if (json) {
    printJson({ codice_cliente: customer.code, enabled: s.enabled, address: s.address ?? null, updated_at: s.updatedAt ?? null });
    return;
  }
  printFields([
    ['customer', customer.code],
    ['notifications', s.enabled ? 'on' : 'off'],
    ['orders by e-mail', s.enabled ? 'the address that received the acknowledgement' : '-'],
    ['other orders', s.enabled ? s.address ?? 'not notified (no --address set)' : '-'],
    ['address', s.enabled ? undefined : s.address ?? '(none)'],
  ]);
}

export function registerNotifyCommands(program: Command): void {
  const customer = program.commands.find((c) => c.name() === 'customer') ?? program.command('customer').description('customers');
  const notify = customer.command('notify').description('e-mail notifications of production status changes to a customer (off by default)');

  notify
    .command('set')
    .description('turn notifications on or off for a customer, and set where orders not sent by e-mail are notified')
    .requiredOption('--code <code>', 'customer code')
    .option('--on', 'notify this customer')
    .option('--off', 'stop notifying this customer')
    .option('--address <address>', 'notify orders that did not come by e-mail (REST, SOAP, FTP, …) at this address')
    .option('--no-address', 'remove the address')
    .option('--json', 'print JSON')
    .action(async (opts: { code: string; on?: boolean; off?: boolean; address?: string | false; json?: boolean }) => {
      if (Boolean(opts.on) === Boolean(opts.off)) throw new IntakeError('VALIDATION', 'give exactly one of --on and --off');
      // commander: --no-address sets address to false; neither option leaves it true (the negation's default).
      const address = opts.address === false ? null : typeof opts.address === 'string' ? opts.address : undefined;
      await withStore(async (store) => {
        const { customer: c, settings } = await setNotifications(store, opts.code, { enabled: Boolean(opts.on), ...(address !== undefined ? { address } : {}) });
        await audit(store, 'cli', settings.enabled ? 'cliente.notifiche_attive' : 'cliente.notifiche_spente', 'cliente', c.code, { address: settings.address ?? null });
        print(c, settings, opts.json);
        if (!opts.json && settings.enabled) {
          println();
          println('Notifications leave through INTAKE_SMTP_RELAY like the replies; without a relay they stay queued ("order-intake replies list").');
        }
      });
    });

  notify
    .command('show')
    .description("a customer's notification setting")
    .requiredOption('--code <code>', 'customer code')
    .option('--json', 'print JSON')
    .action(async (opts: { code: string; json?: boolean }) => {
      await withStore(async (store) => {
        const { customer: c, settings } = await showNotifications(store, opts.code);
        print(c, settings, opts.json);
      });
    });
}
