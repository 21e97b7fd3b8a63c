import type { Command } from 'commander';
import { addIntegration, listIntegrations, revokeIntegration, rotateIntegration, type IssuedIntegration } from '../../handoff/integrations.ts';
import { withStore } from '../context.ts';
import { printJson, printTable, println } from '../output.ts';

function printIssued(i: IssuedIntegration, verb: string): void {
  println(`Integration ${i.name} ${verb}.`);
  println();
  println(`API key (X-API-Key): ${i.api_key}`);
  println();
  println('WARNING: the key is shown only now. It is stored as a hash and cannot be shown again; hand it to the');
  println(`integrator over a safe channel. A lost key can be replaced with "order-intake integration rotate --name ${i.name}".`);
  println('It reads every customer\'s order events (GET /api/v1/eventi) and reports production status; nothing else.');
}

export function registerIntegrationCommands(program: Command): void {
  const integration = program.command('integration').description('integrations: ERP/MIS systems that read the order event feed and report production status');

  integration
    .command('add')
    .description('create an integration and print its API key (once)')
    .requiredOption('--name <name>', 'what the integration is, e.g. MIS')
    .option('--json', 'print JSON')
    .action(async (opts: { name: string; json?: boolean }) => {
      await withStore(async (store) => {
        const issued = await addIntegration(store, opts.name);
        if (opts.json) printJson(issued);
        else printIssued(issued, 'is active');
      });
    });

  integration
    .command('list')
    .description('list integrations (revoked ones too)')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      await withStore(async (store) => {
        const list = await listIntegrations(store);
        const rows = list.map((i) => ({
          name: i.name, key_id: i.keyId, created_at: i.createdAt, ...(i.rotatedAt ? { rotated_at: i.rotatedAt } : {}),
          ...(i.revokedAt ? { revoked_at: i.revokedAt } : {}),
        }));
        if (opts.json) return printJson(rows);
        if (rows.length === 0) return println('No integrations. Add one with "order-intake integration add --name MIS".');
        printTable(['NAME', 'KEY ID', 'CREATED', 'ROTATED', 'REVOKED'], list.map((i) => [i.name, i.keyId, i.createdAt, i.rotatedAt, i.revokedAt]));
      });
    });

  integration
    .command('rotate')
    .description('replace the key of an integration (the old key stops working at once) and print the new one')
    .requiredOption('--name <name>', 'integration name')
    .option('--json', 'print JSON')
    .action(async (opts: { name: string; json?: boolean }) => {
      await withStore(async (store) => {
        const issued = await rotateIntegration(store, opts.name);
        if (opts.json) printJson(issued);
        else printIssued(issued, 'has a new key; the previous one no longer works');
      });
    });

  integration
    .command('revoke')
    .description('revoke an integration: its key stops working at once')
    .requiredOption('--name <name>', 'integration name')
    .option('--json', 'print JSON')
    .action(async (opts: { name: string; json?: boolean }) => {
      await withStore(async (store) => {
        await revokeIntegration(store, opts.name);
        if (opts.json) printJson({ name: opts.name.trim(), revoked: true });
        else println(`Integration ${opts.name.trim()} revoked: its key no longer works.`);
      });
    });
}
