import type { Command } from 'commander';
import { setCustomerActive } from '../../customers/deactivate.ts';
import { formatPeppolId, setCustomerPeppolIds } from '../../customers/peppol-ids.ts';
import { provisionCustomer, type ProvisionedCustomer } from '../../customers/provision.ts';
import { audit } from '../../operators/audit.ts';
import { withStore } from '../context.ts';
import { printFields, printJson, printTable, println } from '../output.ts';

function printCredentials(p: ProvisionedCustomer): void {
  println(`Customer ${p.customer.code} (${p.customer.name}) is active.`);
  println();
  printFields([
    ['API key (REST X-API-Key, SOAP ord:ApiKey)', p.apiKey],
    ['Order mailbox (e-mail)', p.mailbox],
    ['FTP/SFTP user', p.ftpUser],
    ['FTP/SFTP password', p.ftpPassword],
  ]);
  println();
  println('WARNING: the API key and the password are shown only now. They are stored as hashes and cannot be');
  println('shown again; hand them to the customer over a safe channel. A lost API key can be replaced with');
  println(`"order-intake key rotate --code ${p.customer.code}".`);
}

export function registerCustomerCommands(program: Command): void {
  const customer = program.command('customer').description('activate, list, deactivate and reactivate customers');

  customer
    .command('add')
    .description('activate a customer and print its credentials (once)')
    .requiredOption('--code <code>', 'customer code (codice_cliente), e.g. C001')
    .requiredOption('--name <name>', 'company name')
    .option('--json', 'print the credentials as JSON')
    .action(async (opts: { code: string; name: string; json?: boolean }) => {
      await withStore(async (store, config) => {
        const p = await provisionCustomer(store, { code: opts.code, name: opts.name }, config.mailDomain);
        if (opts.json) {
          printJson({
            codice_cliente: p.customer.code,
            nome: p.customer.name,
            api_key: p.apiKey,
            mailbox: p.mailbox,
            ftp_user: p.ftpUser,
            ftp_password: p.ftpPassword,
          });
        } else {
          printCredentials(p);
        }
      });
    });

  customer
    .command('list')
    .description('list customers')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      await withStore(async (store) => {
        const customers = await store.listCustomers();
        if (opts.json) {
          printJson(customers.map((c) => ({
            codice_cliente: c.code, nome: c.name, mailbox: c.mailbox, id: c.id, created_at: c.createdAt, deactivated_at: c.deactivatedAt ?? null,
          })));
        } else if (customers.length === 0) {
          println('no customers yet: add one with "order-intake customer add --code C001 --name \'…\'"');
        } else {
          printTable(['CODE', 'NAME', 'MAILBOX', 'CREATED', 'STATE'], customers.map((c) => [
            c.code, c.name, c.mailbox, c.createdAt, c.deactivatedAt ? `deactivated ${c.deactivatedAt}` : 'active',
          ]));
        }
      });
    });

  customer
    .command('set <code>')
    .description('change a customer\'s settings: its Peppol participant identifiers (the buyer of its UBL orders)')
    .option('--peppol-id <scheme:value>', 'a Peppol identifier, e.g. 0211:IT01234567890 (repeat for more; replaces the list)', (v: string, all: string[]) => [...all, v], [] as string[])
    .option('--no-peppol-ids', 'remove every Peppol identifier')
    .option('--json', 'print JSON')
    .action(async (code: string, opts: { peppolId: string[]; peppolIds: boolean; json?: boolean }) => {
      await withStore(async (store) => {
        if (opts.peppolIds && opts.peppolId.length === 0) throw new Error('nothing to set: give --peppol-id (or --no-peppol-ids)');
        const { customer: c, ids } = await setCustomerPeppolIds(store, code, opts.peppolIds ? opts.peppolId : []);
        await audit(store, 'cli', 'cliente.peppol', 'cliente', c.code, { peppol_ids: ids.map(formatPeppolId) });
        if (opts.json) printJson({ codice_cliente: c.code, peppol_ids: ids.map(formatPeppolId) });
        else println(ids.length ? `Customer ${c.code}: Peppol identifiers ${ids.map(formatPeppolId).join(', ')}.` : `Customer ${c.code} has no Peppol identifiers.`);
      });
    });

  for (const [name, active] of [['deactivate', false], ['reactivate', true]] as const) {
    customer
      .command(`${name} <code>`)
      .description(active
        ? 'let a deactivated customer send orders again, with the credentials it had'
        : 'refuse the customer on every channel (credentials, orders and submissions are kept)')
      .option('--json', 'print JSON')
      .action(async (code: string, opts: { json?: boolean }) => {
        await withStore(async (store) => {
          const { customer: c, changed } = await setCustomerActive(store, code, active);
          if (changed) await audit(store, 'cli', active ? 'cliente.riattiva' : 'cliente.disattiva', 'cliente', c.code);
          if (opts.json) {
            printJson({ codice_cliente: c.code, active: !c.deactivatedAt, deactivated_at: c.deactivatedAt ?? null, changed });
          } else {
            const state = active ? 'active' : 'deactivated';
            println(changed ? `Customer ${c.code} is now ${state}.` : `Customer ${c.code} was already ${state}.`);
            if (!active && changed) {
              println('Every channel refuses it now (API keys within a few seconds); its portal sessions are closed.');
            }
          }
        });
      });
  }
}
