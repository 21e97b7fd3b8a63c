import type { Command } from 'commander';
import { UNIT_CODE_PATTERN } from '../../catalog/units.ts';
import { withStore } from '../context.ts';
import { printJson, printTable, println } from '../output.ts';

/** A unit's description is a short label. */
const MAX_DESCRIPTION = 200;

export function registerUnitCommands(program: Command): void {
  const units = program.command('units').description('units of measure accepted in order lines');

  units
    .command('add')
    .description('add a unit of measure (or change the description of an existing one)')
    .requiredOption('--code <code>', 'unit code, e.g. PZ or H87 (stored upper-case)')
    .requiredOption('--description <text>', 'description, e.g. "Pezzi"')
    .action(async (opts: { code: string; description: string }) => {
      const code = opts.code.trim().toUpperCase();
      const description = opts.description.trim();
      if (!UNIT_CODE_PATTERN.test(code)) throw new Error(`unit code "${opts.code}" is not valid: use 1 to 10 letters or digits`);
      if (description.length === 0 || description.length > MAX_DESCRIPTION) {
        throw new Error(`the description must be 1 to ${MAX_DESCRIPTION} characters`);
      }
      await withStore(async (store) => {
        const existed = (await store.knownUnits([code])).size > 0;
        await store.upsertUnits([{ code, description }]);
        println(`unit ${code} ${existed ? 'updated' : 'added'}: ${description}`);
      });
    });

  units
    .command('list')
    .description('list the units of measure')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      await withStore(async (store) => {
        const list = await store.listUnits();
        if (opts.json) printJson(list);
        else if (list.length === 0) println('no units yet: they are added by "order-intake serve" on first start, or with "units add"');
        else printTable(['CODE', 'DESCRIPTION'], list.map((u) => [u.code, u.description]));
      });
    });
}
