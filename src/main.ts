/**
 * Composition root: config → store → intake → channels, wired by hand (no container, no module singletons), and
 * the graceful stop in the reverse order. Channels stop taking work first; the intake finishes what it holds;
 * the store closes last.
 */
import type { AddressInfo } from 'node:net';
import { createAuthenticator } from './auth/authenticator.ts';
import { createHttpServer } from './channels/http-server.ts';
import { registerConnectorRoutes } from './channels/connectors/routes.ts';
import { registerDocs } from './channels/rest/docs.ts';
import { registerRestRoutes } from './channels/rest/routes.ts';
import { registerIntegrationRoutes } from './channels/rest/integration-routes.ts';
import { storeEventReader } from './handoff/reader.ts';
import { createEventSignal } from './handoff/signal.ts';
import { registerSoapRoutes } from './channels/soap/routes.ts';
import { startFileChannels } from './channels/files/index.ts';
import { startMailChannels } from './channels/mail/index.ts';
import { createIntake, type Intake } from './intake/intake.ts';
import { startHandoff } from './handoff/index.ts';
import { seedDemoIfEmpty } from './seed/demo.ts';
import { openStore } from './store/open.ts';
import type { Config } from './config.ts';
import type { ProvisionedCustomer } from './customers/provision.ts';
import type { Logger } from './log.ts';
import type { Store } from './store/store.ts';

export interface Service {
  store: Store;
  intake: Intake;
  /** Bound ports by channel (useful when configured as 0). */
  ports: Record<string, number>;
  /** The demo customer seeded into an empty store at this start (its secrets, to show once), with the HTTP base URL. */
  demo?: { customer: ProvisionedCustomer; baseUrl?: string };
  stop(): Promise<void>;
}

function baseUrl(config: Config, httpPort: number): string {
  if (config.publicUrl) return config.publicUrl;
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  return `http://${host}:${httpPort}`;
}

export async function startService(config: Config, log: Logger): Promise<Service> {
  const store = await openStore(config);
  log.info({ store: store.kind, dataDir: config.databaseUrl ? undefined : config.dataDir }, 'store ready');
  const demo = await seedDemoIfEmpty(store, config.mailDomain);
  const intake = createIntake({ store, timeZone: config.timeZone, log, claimLeaseMs: config.claimLeaseMs, sweepIntervalMs: config.sweepIntervalMs });
  const auth = createAuthenticator(store);
  // Every processed submission may have committed events (registered or refused orders): wake the feed's long polls.
  const eventSignal = createEventSignal();
  intake.onProcessed(() => eventSignal.notify());
  const ports: Record<string, number> = {};
  const stops: (() => Promise<void>)[] = [];

  if (config.httpPort !== 'off') {
    const app = createHttpServer({ store, log, maxBodyBytes: config.maxBodyBytes });
    registerRestRoutes(app, { intake, store, auth });
    registerIntegrationRoutes(app, { store, reader: storeEventReader(store), signal: eventSignal, auth, pollMs: config.feedPollMs });
    registerConnectorRoutes(app, { intake, store });
    registerSoapRoutes(app, { intake, store, auth, publicUrl: () => baseUrl(config, ports.http ?? Number(config.httpPort)) });
    // The docs' server URL is only known once bound when the port is ephemeral; the static document is built
    // from the configured public URL or the configured port.
    await registerDocs(app, baseUrl(config, config.httpPort));
    await app.listen({ host: config.host, port: config.httpPort });
    ports.http = (app.server.address() as AddressInfo).port;
    log.info({ channel: 'http', port: ports.http }, `HTTP (REST, SOAP, docs) listening on port ${ports.http}`);
    stops.push(() => app.close());
  }

  const files = await startFileChannels({ config, intake, store, auth, log });
  Object.assign(ports, files.ports);
  stops.push(() => files.close());

  const mail = await startMailChannels({ config, intake, store, log });
  Object.assign(ports, mail.ports);
  stops.push(() => mail.close());

  // Webhooks and hot-folder exports: stopped before the intake, so an attempt under way records its result.
  const handoff = startHandoff({ config, store, events: storeEventReader(store), log });
  stops.push(() => handoff.close());
  // Registrations committed here are handed off at once rather than at the next poll (other instances' at the poll).
  intake.onProcessed(() => handoff.kick());

  // Whatever was received and not processed before the last stop (or crash) is processed now, in the
  // background so the channels take new work meanwhile.
  const recovery = intake.recover().then(
    (n) => n > 0 && log.info({ recovered: n }, 'processed submissions left from the previous run'),
    (err: unknown) => log.error({ err }, 'recovery failed'),
  );

  return {
    store, intake, ports,
    demo: demo && { customer: demo, baseUrl: ports.http ? baseUrl(config, ports.http) : undefined },
    async stop() {
      for (const stop of stops.reverse()) await stop();
      await recovery;
      await intake.stop();
      await store.close();
      log.info('stopped');
    },
  };
}
