import type { Command } from 'commander';
import { rotateApiKey } from '../../customers/provision.ts';
import { requireCustomerByCode } from '../../customers/find.ts';
import { withStore } from '../context.ts';
import { printJson, println } from '../output.ts';

export function registerKeyCommands(program: Command): void {
  const key = program.command('key').description('API keys');

  key
    .command('rotate')
    .description("revoke a customer's API keys and issue a new one (printed once)")
    .requiredOption('--code <code>', 'customer code')
    .option('--json', 'print JSON')
    .action(async (opts: { code: string; json?: boolean }) => {
      await withStore(async (store) => {
        const customer = await requireCustomerByCode(store, opts.code);
        const apiKey = await rotateApiKey(store, customer.code);
        if (opts.json) {
          printJson({ codice_cliente: customer.code, api_key: apiKey });
        } else {
          println(`New API key of ${customer.code}: ${apiKey}`);
          println('The previous keys no longer work. This key is shown only now.');
        }
      });
    });
}
