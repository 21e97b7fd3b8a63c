import type { Command } from 'commander';
import { addOperator, resetOperatorPassword, setOperatorDisabled } from '../../operators/accounts.ts';
import { withStore } from '../context.ts';
import { printFields, printJson, printTable, println } from '../output.ts';

function printPassword(email: string, role: string, password: string, json: boolean | undefined): void {
  if (json) {
    printJson({ email, password, role });
    return;
  }
  printFields([['E-mail', email], ['Role', role], ['Password', password]]);
  println();
  println('WARNING: the password is shown only now; it is stored as a hash. Log in at /console.');
}

export function registerOperatorCommands(program: Command): void {
  const operator = program.command('operator').description('accounts of the web console (/console)');

  operator
    .command('add')
    .description('create an operator and print its password (once)')
    .requiredOption('--email <email>', 'login e-mail address')
    .option('--role <role>', 'admin, operator or viewer (viewers only look)', 'operator')
    .option('--json', 'print JSON')
    .action(async (opts: { email: string; role: string; json?: boolean }) => {
      await withStore(async (store) => {
        const { operator: op, password } = await addOperator(store, { email: opts.email, role: opts.role });
        printPassword(op.email, op.role, password, opts.json);
      });
    });

  operator
    .command('list')
    .description('list operators')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      await withStore(async (store) => {
        const ops = await store.listOperators();
        if (opts.json) {
          printJson(ops.map((o) => ({ email: o.email, role: o.role, created_at: o.createdAt, disabled_at: o.disabledAt ?? null })));
        } else if (ops.length === 0) {
          println('no operators yet: add one with "order-intake operator add --email you@example.com --role admin"');
        } else {
          printTable(['EMAIL', 'ROLE', 'CREATED', 'DISABLED'], ops.map((o) => [o.email, o.role, o.createdAt, o.disabledAt ?? '']));
        }
      });
    });

  operator
    .command('reset-password')
    .description('give an operator a new password (printed once) and end its sessions')
    .requiredOption('--email <email>', 'login e-mail address')
    .option('--json', 'print JSON')
    .action(async (opts: { email: string; json?: boolean }) => {
      await withStore(async (store) => {
        const { operator: op, password } = await resetOperatorPassword(store, opts.email);
        printPassword(op.email, op.role, password, opts.json);
      });
    });

  operator
    .command('disable')
    .description('stop an operator logging in and end its sessions (--enable to undo)')
    .requiredOption('--email <email>', 'login e-mail address')
    .option('--enable', 'enable the operator again')
    .option('--json', 'print JSON')
    .action(async (opts: { email: string; enable?: boolean; json?: boolean }) => {
      await withStore(async (store) => {
        const op = await setOperatorDisabled(store, opts.email, !opts.enable);
        if (opts.json) printJson({ email: op.email, role: op.role, disabled_at: op.disabledAt ?? null });
        else println(`Operator ${op.email} is ${op.disabledAt ? 'disabled' : 'enabled'}.`);
      });
    });
}
