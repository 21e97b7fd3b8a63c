import { Option, type Command } from 'commander';
import { IntakeError } from '../../domain/errors.ts';
import { createIntake } from '../../intake/intake.ts';
import type { SubmissionState } from '../../domain/types.ts';
import { DEFAULT_LIMIT, parseLimit, withStore } from '../context.ts';
import { cliLogger } from '../logger.ts';
import { printJson, printTable, println } from '../output.ts';
import { showSubmission } from './submission-show.ts';

const STATES: readonly SubmissionState[] = ['received', 'processed', 'failed'];

export function registerSubmissionCommands(program: Command): void {
  const submissions = program.command('submissions').description('everything received, with its outcome');

  submissions
    .command('list')
    .description('list submissions, newest first')
    .addOption(new Option('--state <state>', 'only submissions in this state').choices(STATES))
    .option('--limit <n>', 'at most n submissions', parseLimit, DEFAULT_LIMIT)
    .option('--json', 'print JSON')
    .action(async (opts: { state?: SubmissionState; limit: number; json?: boolean }) => {
      await withStore(async (store) => {
        const list = await store.listSubmissions({ state: opts.state, limit: opts.limit });
        if (opts.json) {
          printJson(list);
        } else if (list.length === 0) {
          println(opts.state ? `no submissions in state ${opts.state}` : 'no submissions');
        } else {
          printTable(
            ['ID', 'RECEIVED', 'CUSTOMER', 'CHANNEL', 'FILE', 'STATE', 'ESITO', 'RETRIES'],
            list.map((s) => [s.id, s.receivedAt, s.customerCode, s.channel, s.fileName, s.state, s.esito, s.retries]),
          );
        }
      });
    });

  submissions
    .command('show <id>')
    .description('metadata, outcome and raw file of a submission')
    .option('--raw', 'write only the raw bytes to stdout, unchanged')
    .option('--json', 'print JSON (raw file in base64)')
    .action(async (id: string, opts: { raw?: boolean; json?: boolean }) => {
      await withStore(async (store) => showSubmission(store, id, opts));
    });

  submissions
    .command('reprocess <id>')
    .description('judge a submission again (e.g. after fixing the catalog) and print the new outcome')
    .action(async (id: string) => {
      await withStore(async (store, config) => {
        if (!(await store.getSubmission(id))) throw new IntakeError('NOT_FOUND', `no submission with id ${id}`);
        const intake = createIntake({ store, timeZone: config.timeZone, log: cliLogger(config.logLevel),
          peppol: { ...(config.peppolId ? { sellerId: config.peppolId } : {}), units: config.peppolUnits } });
        printJson(await intake.reprocess(id));
      });
    });
}
