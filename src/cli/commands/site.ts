import type { Command } from 'commander';
import { addSite } from '../../connectors/sites.ts';
import { withStore } from '../context.ts';
import { printJson, printTable, println } from '../output.ts';

export function registerSiteCommands(program: Command): void {
  const site = program.command('site').description('production sites (where connectors deliver orders)');

  site
    .command('add <code>')
    .description('define a production site, e.g. "site add VR --name Verona"')
    .requiredOption('--name <name>', 'site name')
    .option('--json', 'print JSON')
    .action(async (code: string, opts: { name: string; json?: boolean }) => {
      await withStore(async (store) => {
        const s = await addSite(store, { code, name: opts.name });
        if (opts.json) printJson({ codice: s.code, nome: s.name, created_at: s.createdAt });
        else println(`Site ${s.code} (${s.name}) added.`);
      });
    });

  site
    .command('list')
    .description('list production sites')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      await withStore(async (store) => {
        const sites = await store.listSites();
        if (opts.json) printJson(sites.map((s) => ({ codice: s.code, nome: s.name, created_at: s.createdAt })));
        else if (sites.length === 0) println('no sites yet: add one with "order-intake site add VR --name Verona"');
        else printTable(['CODE', 'NAME', 'CREATED'], sites.map((s) => [s.code, s.name, s.createdAt]));
      });
    });
}
