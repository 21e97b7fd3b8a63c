import type { Command } from 'commander';
import { loadConfig } from '../../config.ts';
import { createLogger } from '../../log.ts';
import { limitHeapGrowth } from '../../heap-growth.ts';
import { demoBanner } from '../../seed/banner.ts';

export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description('start every channel (REST, SOAP, FTP, SFTP, SMTP, …) until SIGINT or SIGTERM; SIGHUP reloads the TLS certificate')
    .action(async () => {
      const config = loadConfig();
      limitHeapGrowth();
      const log = createLogger(config.logLevel, { format: config.logFormat });
      // Loaded here, not at the top: the other commands then do not load every channel's libraries.
      const { startService } = await import('../../main.ts');
      const service = await startService(config, log);
      if (service.demo) process.stdout.write(demoBanner(service.demo.customer, service.ports, service.demo.baseUrl));
      log.info({ ports: service.ports }, 'service ready');

      const stop = (signal: NodeJS.Signals) => {
        log.info({ signal }, 'stopping');
        service.stop().then(
          () => process.exit(0),
          (err: unknown) => {
            log.error({ err }, 'stop failed');
            process.exit(1);
          },
        );
      };
      // once: a second Ctrl-C during a stuck stop gets Node's default handling and ends the process at once.
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      // SIGHUP: a renewed certificate (certbot's deploy hook, an ACME client) is picked up without a restart.
      process.on('SIGHUP', () => {
        service.reloadTls().catch((err: unknown) => log.error({ err }, 'TLS certificate reload failed; the previous certificate stays in use'));
      });
    });
}
