/**
 * The `order-intake` command: the operator's tool for the service (start it, activate customers, load the
 * catalog, look at what arrived). Each command lives in commands/; this file wires them and decides how a
 * failure looks: `error: <message>` on stderr and exit status 1, with the stack only when
 * INTAKE_LOG_LEVEL=debug (or trace).
 */
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { registerArticleCommands } from './commands/articles.ts';
import { registerConnectorCommands } from './commands/connector.ts';
import { registerCustomerCommands } from './commands/customer.ts';
import { registerDbCommands } from './commands/db.ts';
import { registerIntegrationCommands } from './commands/integration.ts';
import { registerKeyCommands } from './commands/key.ts';
import { registerMailCommands } from './commands/mail.ts';
import { registerMailTrustCommands } from './commands/mail-trust.ts';
import { registerNotifyCommands } from './commands/notify.ts';
import { registerOrderCommands } from './commands/orders.ts';
import { registerOperatorCommands } from './commands/operator.ts';
import { registerServeCommand } from './commands/serve.ts';
import { registerSiteCommands } from './commands/site.ts';
import { registerSubmissionCommands } from './commands/submissions.ts';
import { registerUnitCommands } from './commands/units.ts';
import { registerWebhookCommands } from './commands/webhook.ts';
import { registerExportCommands } from './commands/export.ts';

function version(): string {
  // src/cli/ and dist/cli/ are both two levels below the package root.
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

export function buildProgram(): Command {
  const program = new Command('order-intake')
    .description('Order intake service: receives purchase orders by REST, SOAP, e-mail and FTP/SFTP and registers each once.')
    .version(version())
    .showHelpAfterError('(add --help for usage)')
    .addHelpText('after', '\nSettings come from INTAKE_* environment variables (INTAKE_DATA_DIR, INTAKE_DATABASE_URL, …).');
  registerServeCommand(program);
  registerCustomerCommands(program);
  registerKeyCommands(program);
  registerArticleCommands(program);
  registerUnitCommands(program);
  registerOrderCommands(program);
  registerSubmissionCommands(program);
  registerMailCommands(program);
  registerMailTrustCommands(program);
  registerNotifyCommands(program);
  registerDbCommands(program);
  registerSiteCommands(program);
  registerConnectorCommands(program);
  registerWebhookCommands(program);
  registerExportCommands(program);
  registerOperatorCommands(program);
  registerIntegrationCommands(program);
  return program;
}

function wantsStack(): boolean {
  try {
    return ['debug', 'trace'].includes(loadConfig().logLevel);
  } catch {
    return false;
  }
}

export async function runCli(argv: readonly string[]): Promise<void> {
  try {
    await buildProgram().parseAsync([...argv]);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`error: ${message}\n`);
    if (wantsStack() && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
    // exit now: a failed `serve` may have left a listener or a timer that would keep the process alive.
    process.exit(1);
  }
}
