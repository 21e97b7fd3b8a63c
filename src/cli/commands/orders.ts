import type { Command } from 'commander';
import { requireCustomerByCode } from '../../customers/find.ts';
import { DEFAULT_LIMIT, parseLimit, withStore } from '../context.ts';
import { printJson, printTable, println } from '../output.ts';

export function registerOrderCommands(program: Command): void {
  const orders = program.command('orders').description('registered orders');

  orders
    .command('list')
    .description('list registered orders, newest first')
    .option('--customer <code>', 'only this customer')
    .option('--limit <n>', 'at most n orders', parseLimit, DEFAULT_LIMIT)
    .option('--json', 'print JSON')
    .action(async (opts: { customer?: string; limit: number; json?: boolean }) => {
      await withStore(async (store) => {
        const customerId = opts.customer ? (await requireCustomerByCode(store, opts.customer)).id : undefined;
        const list = await store.listOrders({ customerId, limit: opts.limit });
        if (opts.json) {
          printJson(list);
        } else if (list.length === 0) {
          println('no orders');
        } else {
          printTable(
            ['NUMERO', 'ID', 'CLIENTE', 'RIFERIMENTO', 'DATA', 'RIGHE', 'CANALE', 'SITO', 'REGISTRATO'],
            list.map((o) => [
              o.numero_ordine, o.id_ordine, o.codice_cliente, o.riferimento_ordine, o.data_ordine, o.righe.length, o.channel, o.sito_produzione ?? '', o.registeredAt,
            ]),
          );
        }
      });
    });
}
