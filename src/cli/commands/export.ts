import type { Command } from 'commander';
import { addExport, requireSubscriber } from '../../handoff/subscribers.ts';
import type { Subscriber } from '../../domain/store/handoff.ts';
import { withStore } from '../context.ts';
import { printJson, printTable, println } from '../output.ts';

function asJson(s: Subscriber): Record<string, unknown> {
  return { id: s.id, dir: s.dir, format: s.format, state: s.state, created_at: s.createdAt };
}

export function registerExportCommands(program: Command): void {
  const exp = program.command('export').description('hot-folder export: each registered order written as a file into a folder');

  exp
    .command('add')
    .description('write every order registered from now on into a folder')
    .requiredOption('--dir <path>', 'an existing folder (a watched hot folder)')
    .requiredOption('--format <format>', 'json, xml or xjdf (XJDF 2.1 product intent)')
    .option('--json', 'print JSON')
    .action(async (opts: { dir: string; format: string; json?: boolean }) => {
      await withStore(async (store) => {
        const s = await addExport(store, opts);
        if (opts.json) printJson(asJson(s));
        else println(`Export ${s.id} writes ${s.format} files into ${s.dir}.`);
      });
    });

  exp
    .command('list')
    .description('list export folders')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      await withStore(async (store) => {
        const list = await store.listSubscribers({ kind: 'export' });
        if (opts.json) printJson(list.map(asJson));
        else if (list.length === 0) println('no exports');
        else printTable(['ID', 'FOLDER', 'FORMAT', 'STATE', 'CREATED'], list.map((s) => [s.id, s.dir, s.format, s.state, s.createdAt]));
      });
    });

  exp
    .command('remove <id>')
    .description('stop exporting into that folder (files already written stay)')
    .action(async (id: string) => {
      await withStore(async (store) => {
        await requireSubscriber(store, id, 'export');
        await store.removeSubscriber(id);
        println(`Export ${id} removed.`);
      });
    });
}
