import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { requireCustomerByCode } from '../../customers/find.ts';
import { importLookup } from '../../connectors/lookup-csv.ts';
import { importCustomerTable } from '../../connectors/customers-csv.ts';
import { addConnector, requireConnector, revokeConnector, rotateConnectorKey, setMapping, setProductKey, type IssuedConnector } from '../../connectors/provision.ts';
import { testMapping } from '../../connectors/test-mapping.ts';
import { setConnectorCallback } from '../../handoff/subscribers.ts';
import type { Connector } from '../../domain/store/connectors.ts';
import { IntakeError } from '../../domain/errors.ts';
import { withStore } from '../context.ts';
import { clean, printFields, printJson, printTable, println } from '../output.ts';

/** Whose orders a connector may bring, as typed: `all` or the codes. */
function boundText(c: Connector): string {
  return c.allCustomers ? 'all' : c.customers.map((b) => b.code).join(',');
}

function asJson(c: Connector): Record<string, unknown> {
  return {
    id: c.id, codice_cliente: c.customerCode, clienti: c.allCustomers ? 'all' : c.customers.map((b) => b.code),
    ...(c.productKey === undefined ? {} : { chiave_prodotto: c.productKey }),
    nome: c.name, formato: c.format, siti: c.sites, allow_ips: c.allowIps,
    key_id: c.keyId, mapping: c.mapping !== undefined, created_at: c.createdAt, ...(c.revokedAt ? { revoked_at: c.revokedAt } : {}),
  };
}

function printIssued(i: IssuedConnector, verb: string): void {
  const c = i.connector;
  println(`Connector ${c.id} (${c.name}) of ${c.customerCode} ${verb}.`);
  println();
  printFields([
    ['service-x-key', i.key],
    ['Format', c.format],
    ['Customers', c.allCustomers ? 'all' : c.customers.map((b) => b.code).join(', ')],
    ['Production sites', c.sites.join(', ')],
    ['Allowed source addresses', c.allowIps.length ? c.allowIps.join(', ') : 'any'],
  ]);
  println();
  println('WARNING: the key is shown only now. It is stored as a hash and cannot be shown again; hand it to the');
  println(`integrator over a safe channel. A lost key can be replaced with "order-intake connector rotate ${c.id}".`);
}

export function registerConnectorCommands(program: Command): void {
  const connector = program.command('connector').description('connectors: prepress systems and ERPs that submit with a service-x-key');

  connector
    .command('add')
    .description('create a connector and print its service-x-key (once)')
    .option('--customer <code>', 'customer code (codice_cliente); with --customers: the account that owns the key')
    .option('--customers <codes>', "customers whose orders it may bring: comma-separated codes, or all (a printer's prepress or MIS)")
    .requiredOption('--name <name>', 'what the connector is, e.g. "Switch Verona"')
    .requiredOption('--sites <codes>', 'bound production sites, comma-separated (e.g. VR,MI)')
    .requiredOption('--format <format>', 'jdf (JDF/JMF), xjdf (XJDF/XJMF), json or xml')
    .option('--allow-ip <cidrs>', 'source addresses allowed, comma-separated CIDR blocks (default: any)')
    .option('--mapping <file>', 'JSONata mapping for json/xml connectors')
    .option('--product-key <template>', 'how a ticket product becomes its lookup key, e.g. "{@DescriptiveName}||{MediaIntent/@MediaQuality}" (default: auto)')
    .option('--json', 'print JSON')
    .action(async (opts: {
      customer?: string; customers?: string; name: string; sites: string; format: string; allowIp?: string; mapping?: string; productKey?: string; json?: boolean;
    }) => {
      const mapping = opts.mapping === undefined ? undefined : await readFile(opts.mapping, 'utf8');
      await withStore(async (store) => {
        const issued = await addConnector(store, {
          customer: opts.customer, customers: opts.customers, name: opts.name, sites: opts.sites, format: opts.format,
          allowIps: opts.allowIp, mapping, productKey: opts.productKey,
        });
        if (opts.json) printJson({ ...asJson(issued.connector), service_x_key: issued.key });
        else printIssued(issued, 'is active');
      });
    });

  connector
    .command('list')
    .description('list connectors')
    .option('--customer <code>', 'only this customer')
    .option('--json', 'print JSON')
    .action(async (opts: { customer?: string; json?: boolean }) => {
      await withStore(async (store) => {
        const customerId = opts.customer ? (await requireCustomerByCode(store, opts.customer)).id : undefined;
        const list = await store.listConnectors({ customerId });
        if (opts.json) printJson(list.map(asJson));
        else if (list.length === 0) println('no connectors');
        else {
          printTable(
            ['ID', 'CLIENTE', 'NAME', 'FORMAT', 'SITES', 'ALLOW IPS', 'KEY ID', 'STATE', 'CREATED', 'CLIENTI'],
            list.map((c) => [c.id, c.customerCode, c.name, c.format, c.sites.join(','), c.allowIps.join(',') || 'any', c.keyId,
              c.revokedAt ? `revoked ${c.revokedAt}` : 'active', c.createdAt, boundText(c)]),
          );
        }
      });
    });

  connector
    .command('rotate <id>')
    .description('issue a new service-x-key (printed once); the old one stops working at once')
    .option('--json', 'print JSON')
    .action(async (id: string, opts: { json?: boolean }) => {
      await withStore(async (store) => {
        const issued = await rotateConnectorKey(store, id);
        if (opts.json) printJson({ ...asJson(issued.connector), service_x_key: issued.key });
        else printIssued(issued, 'has a new key; the previous one no longer works');
      });
    });

  connector
    .command('set <id>')
    .description("set a connector's callback: production's decisions on its PrintTalk cancellations are POSTed there")
    .option('--callback-url <url>', 'receiver URL (https; http only to a loopback host), checked like a webhook URL')
    .option('--allow-private', 'allow private, loopback and link-local callback addresses (refused by default)')
    .option('--no-callback', 'remove the callback')
    .option('--json', 'print JSON')
    .action(async (id: string, opts: { callbackUrl?: string; allowPrivate?: boolean; callback: boolean; json?: boolean }) => {
      if (opts.callback === (opts.callbackUrl === undefined)) throw new IntakeError('VALIDATION', 'give either --callback-url <url> or --no-callback');
      await withStore(async (store, config) => {
        const issued = await setConnectorCallback(store, config.secretKey, { connectorId: id, url: opts.callbackUrl, allowPrivate: opts.allowPrivate });
        if (!issued) {
          if (opts.json) printJson({ id, callback: null });
          else println(`Connector ${id} has no callback.`);
          return;
        }
        const w = issued.webhook;
        if (opts.json) {
          printJson({ id, callback: { webhook: w.id, url: w.url, secret: issued.secret, events: w.events } });
          return;
        }
        println(`Connector ${id} calls back ${w.url} (webhook ${w.id}).`);
        println();
        printFields([['URL', w.url], ['Events', w.events.join(', ')], ['Signing secret', issued.secret]]);
        println();
        println('WARNING: the secret is shown only now. Hand it to the connector\'s integrator over a safe channel; they');
        println('verify every callback with it like a webhook delivery (docs/customers/webhooks.md).');
      }, { sealing: true });
    });

  connector
    .command('revoke <id>')
    .description('revoke a connector: its key stops working (what it delivered stays)')
    .action(async (id: string) => {
      await withStore(async (store) => {
        const c = await revokeConnector(store, id);
        println(`Connector ${c.id} (${c.name}) of ${c.customerCode} is revoked; its key no longer works.`);
      });
    });

  const lookup = connector.command('lookup').description("a connector's product lookup table");
  lookup
    .command('import <id> <file>')
    .description('replace the lookup table from a CSV file (chiave_prodotto;codice_articolo;unita_misura)')
    .action(async (id: string, file: string) => {
      await withStore(async (store) => {
        const n = await importLookup(store, id, file);
        println(`imported ${n} lookup rows from ${file}; the previous table is replaced`);
      });
    });

  const customers = connector.command('customers').description("a connector's customer table: the sender's customer ids → codice_cliente");
  customers
    .command('import <id> <file>')
    .description('replace the customer table from a CSV file (id_esterno;codice_cliente); every customer must be bound to the connector')
    .action(async (id: string, file: string) => {
      await withStore(async (store) => {
        const n = await importCustomerTable(store, id, file);
        println(`imported ${n} customer rows from ${file}; the previous table is replaced`);
      });
    });
  customers
    .command('list <id>')
    .description('show the customer table and whose orders the connector may bring')
    .option('--json', 'print JSON')
    .action(async (id: string, opts: { json?: boolean }) => {
      await withStore(async (store) => {
        const c = await requireConnector(store, id);
        const rows = await store.connectorCustomerIds(c.id);
        if (opts.json) {
          printJson({ clienti: c.allCustomers ? 'all' : c.customers.map((b) => b.code), tabella: rows.map((r) => ({ id_esterno: r.externalId, codice_cliente: r.customerCode })) });
          return;
        }
        println(`Connector ${c.id} (${c.name}) may bring orders of: ${c.allCustomers ? 'all customers' : boundText(c)}`);
        if (rows.length === 0) println('no customer table: tickets must name our codice_cliente, or none (connectors bound to one customer)');
        else printTable(['ID_ESTERNO', 'CODICE_CLIENTE'], rows.map((r) => [r.externalId, r.customerCode]));
      });
    });

  connector
    .command('product-key <id> <template>')
    .description('set how a ticket product becomes its lookup key ("auto": ExternalID/ProductID, ProductType, DescriptiveName)')
    .action(async (id: string, template: string) => {
      await withStore(async (store) => {
        const c = await setProductKey(store, id, template);
        println(`product key of connector ${c.id} (${c.name}): ${c.productKey ?? 'auto'}`);
      });
    });

  const mapping = connector.command('mapping').description("a connector's mapping (json and xml connectors)");
  mapping
    .command('set <id> <file>')
    .description('store a JSONata mapping (checked before it is stored)')
    .action(async (id: string, file: string) => {
      const text = await readFile(file, 'utf8');
      await withStore(async (store) => {
        const c = await setMapping(store, id, text);
        println(`mapping of connector ${c.id} (${c.name}) stored`);
      });
    });

  connector
    .command('test-mapping <file>')
    .description('show the orders a file becomes and the structural verdict of each (nothing is stored); exit 1 when one is not valid')
    .option('--connector <id>', "use a stored connector's format, lookup table and mapping")
    .option('--mapping <file>', 'a JSONata mapping file to try instead')
    .option('--format <format>', 'json or xml (with --mapping)')
    .option('--content-type <type>', 'the Content-Type the file would be sent with (default: from its extension)')
    .option('--json', 'print JSON')
    .action(async (file: string, opts: { connector?: string; mapping?: string; format?: string; contentType?: string; json?: boolean }) => {
      const input = { file, connector: opts.connector, mappingFile: opts.mapping, format: opts.format, contentType: opts.contentType };
      const result = opts.connector === undefined ? await testMapping(undefined, input) : await withStore((store) => testMapping(store, input));
      if (opts.json) {
        printJson(result);
      } else {
        println(`${result.orders.length} order(s) read as ${result.kind}${result.site ? `, site ${clean(result.site)}` : ''}`);
        for (const o of result.orders) {
          println();
          println(`order ${o.index + 1}: ${o.valid ? 'valid' : 'NOT valid'}`);
          for (const m of o.messages) println(`  - ${clean(m)}`);
          // The candidate comes from the file: cleaned, so it cannot drive the operator's terminal.
          println(clean(JSON.stringify(o.candidate, null, 2) ?? 'undefined'));
        }
      }
      if (result.orders.some((o) => !o.valid)) process.exitCode = 1;
    });
}
