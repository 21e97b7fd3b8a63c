/**
 * Composition root: config → store → intake → channels, wired by hand (no container, no module singletons), and
 * the graceful stop in the reverse order. Channels stop taking work first; the intake finishes what it holds;
 * the store closes last.
 */
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Server as TlsServer } from 'node:tls';
import { createAuthenticator } from './auth/authenticator.ts';
import { createHttpServer } from './http/server.ts';
import { createReadiness, type Readiness } from './http/readiness.ts';
import { addHsts, httpsOptions, reloadTls, startRedirectServer } from './http/tls.ts';
import { registerConnectorRoutes } from './channels/connectors/routes.ts';
import { registerDocs } from './channels/rest/docs.ts';
import { registerRestRoutes } from './channels/rest/routes.ts';
import { registerIntegrationRoutes } from './channels/rest/integration-routes.ts';
import { storeEventReader } from './handoff/reader.ts';
import { createEventSignal } from './handoff/signal.ts';
import { registerSoapRoutes } from './channels/soap/routes.ts';
import { registerWeb } from './channels/web/index.ts';
import { startFileChannels } from './channels/files/index.ts';
import { createMemoryBudget, type MemoryBudget } from './channels/memory-budget.ts';
import { startMailChannels } from './channels/mail/index.ts';
import { createIntake, type Intake } from './intake/intake.ts';
import { holdHeapGrowthLimit } from './heap-growth.ts';
import { defaultHolder } from './intake/claims.ts';
import { startHandoff } from './handoff/index.ts';
import { restoreMailSubscriber } from './handoff/notify-settings.ts';
import { registerMetricsRoute, startMetricsServer } from './metrics/http.ts';
import { createMetrics, type Metrics } from './metrics/metrics.ts';
import { timeStoreWrites } from './metrics/store-timing.ts';
import { countLockouts, timeAcks } from './metrics/wrap.ts';
import { seedDemoIfEmpty } from './seed/demo.ts';
import { QUEUE_NAMES } from './domain/store/stats.ts';
import { openStore, SQLITE_FILE_NAME } from './store/open.ts';
import { startBackupSchedule } from './backups/schedule.ts';
import type { Config } from './config.ts';
import { resolveSecretKey, SECRET_KEY_FILE } from './auth/secret-key-file.ts';
import type { ProvisionedCustomer } from './customers/provision.ts';
import type { Logger } from './log.ts';
import type { Store } from './domain/store/store.ts';

export interface Service {
  store: Store;
  intake: Intake;
  /** Bound ports by channel (useful when configured as 0). */
  ports: Record<string, number>;
  /** The demo customer seeded into an empty store at this start (its secrets, to show once), with the HTTP base URL. */
  demo?: { customer: ProvisionedCustomer; baseUrl?: string };
  /** This service's metrics (its own registry: services in one process never share numbers). */
  metrics: Metrics;
  /** What GET /readyz reports: starting until every channel listens, stopping from the first moment of stop(). */
  readiness: Readiness;
  /** Memory shared by the uploads being stored and judged, of every channel that takes files (FTP, SFTP, portal). */
  uploadBudget: MemoryBudget;
  /** Re-read the TLS certificate and key (SIGHUP); connections already open keep theirs. Throws, keeping the old ones, if unusable. */
  reloadTls(): Promise<void>;
  stop(): Promise<void>;
}

function baseUrl(config: Config, httpPort: number): string {
  if (config.publicUrl) return config.publicUrl;
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  return `${config.httpTls ? 'https' : 'http'}://${host}:${httpPort}`;
}

export async function startService(given: Config, log: Logger): Promise<Service> {
  // Before the store is opened: with PostgreSQL and no key the start is refused before any connection.
  const config: Config = Object.freeze({ ...given, secretKey: await resolveSecretKey(given, log) });
  const metrics = createMetrics();
  const opened = await openStore(config);
  const store = timeStoreWrites(opened, metrics);
  for (const queue of QUEUE_NAMES) metrics.addQueue(queue, () => opened.countQueue(queue));
  metrics.addWriterConnections(() => opened.writerConnections());
  log.info({ store: store.kind, dataDir: config.databaseUrl ? undefined : config.dataDir }, 'store ready');
  const demo = await seedDemoIfEmpty(store, config.mailDomain);
  // One name for this process on every claim and lease it takes, registered as a live instance: what it holds is
  // freed as soon as it is gone (docs/development/claims.md).
  const holder = defaultHolder();
  await store.startInstance(holder);
  log.info({ instance: holder }, 'instance registered');
  const core = createIntake({ store, timeZone: config.timeZone, log, claimLeaseMs: config.claimLeaseMs, sweepIntervalMs: config.sweepIntervalMs, holder, metrics,
    largeWork: holdHeapGrowthLimit, peppol: { ...(config.peppolId ? { sellerId: config.peppolId } : {}), units: config.peppolUnits } });
  // What channels get: the same intake and authenticator, with acknowledgement latency and lockouts counted.
  const intake = timeAcks(core, metrics);
  const auth = countLockouts(createAuthenticator(store), metrics);
  const reloaders: (() => Promise<void>)[] = [];
  // Every processed submission may have committed events (registered or refused orders): wake the feed's long polls.
  const eventSignal = createEventSignal();
  core.onProcessed(() => eventSignal.notify());
  const ports: Record<string, number> = {};
  const stops: (() => Promise<void>)[] = [];
  const readiness = createReadiness();
  // One budget for every channel that takes whole files: a customer's large files by the portal wait for the same
  // room as by FTP, or four of them at once would take what the budget keeps from the rest of the service.
  const uploadBudget = createMemoryBudget(config.uploadMemoryBytes);
  // Every listener counts for readiness from its listen to the start of its close.
  const listening = (names: string[], stop: () => Promise<void>) => {
    for (const name of names) readiness.listening(name);
    stops.push(() => {
      for (const name of names) readiness.closed(name);
      return stop();
    });
  };

  if (config.httpPort !== 'off') {
    const tlsFiles = config.httpTls && config.tlsCertFile && config.tlsKeyFile ? { certFile: config.tlsCertFile, keyFile: config.tlsKeyFile } : undefined;
    const app = createHttpServer({
      store, log, maxBodyBytes: config.maxBodyBytes, trustProxy: config.trustProxy, https: tlsFiles && await httpsOptions(tlsFiles),
      readiness,
    });
    if (tlsFiles) reloaders.push(() => reloadTls(app.server as unknown as TlsServer, tlsFiles));
    addHsts(app);
    metrics.trackConnections('http', app.server);
    if (config.metricsToken && config.metricsPort === 'off') registerMetricsRoute(app, metrics, config.metricsToken);
    registerRestRoutes(app, { intake, store, auth, timeZone: config.timeZone, ...(config.peppolId ? { peppolId: config.peppolId } : {}) });
    registerIntegrationRoutes(app, { store, reader: storeEventReader(store), signal: eventSignal, auth, pollMs: config.feedPollMs });
    registerConnectorRoutes(app, { intake, store, onEvent: () => eventSignal.notify() });
    await registerWeb(app, {
      store, intake, log, timeZone: config.timeZone, mailDomain: config.mailDomain, maxFileBytes: config.maxFileBytes,
      budget: uploadBudget, dataDir: config.dataDir, onEvent: () => eventSignal.notify(),
      ...(config.peppolId ? { peppolId: config.peppolId } : {}),
    });
    registerSoapRoutes(app, { intake, store, auth, publicUrl: () => baseUrl(config, ports.http ?? Number(config.httpPort)) });
    // The docs' server URL is only known once bound when the port is ephemeral; the static document is built
    // from the configured public URL or the configured port.
    await registerDocs(app, baseUrl(config, config.httpPort));
    await app.listen({ host: config.host, port: config.httpPort });
    ports.http = (app.server.address() as AddressInfo).port;
    log.info({ channel: 'http', port: ports.http, tls: Boolean(tlsFiles) }, `HTTP${tlsFiles ? 'S' : ''} (REST, SOAP, docs) listening on port ${ports.http}`);
    listening(['http'], () => app.close());
    if (config.httpRedirectPort !== 'off') {
      const redirect = await startRedirectServer({ host: config.host, port: config.httpRedirectPort, httpsPort: ports.http, publicUrl: config.publicUrl, log });
      ports['http-redirect'] = redirect.port;
      listening(['http-redirect'], () => redirect.close());
    }
  }
  if (config.metricsPort !== 'off') {
    const m = await startMetricsServer({ metrics, host: config.metricsHost, port: config.metricsPort, token: config.metricsToken, log });
    ports.metrics = m.port;
    listening(['metrics'], () => m.close());
  }

  const files = await startFileChannels({ config, intake, store, auth, log, metrics, budget: uploadBudget });
  Object.assign(ports, files.ports);
  listening(Object.keys(files.ports), () => files.close());

  const mail = await startMailChannels({ config, intake, store, log, holder, metrics });
  Object.assign(ports, mail.ports);
  listening(Object.keys(mail.ports), () => mail.close());
  // The same certificate files serve FTP's AUTH TLS and SMTP's STARTTLS: a renewal reaches them on the same SIGHUP.
  reloaders.push(async () => {
    await files.reloadTls();
  }, async () => {
    await mail.reloadTls();
  });

  // Webhooks and hot-folder exports: stopped before the intake, so an attempt under way records its result.
  // Customers with status notifications on need their subscriber (not carried by `db copy`): made sure of at start.
  await restoreMailSubscriber(store).catch((err: unknown) => log.error({ err }, 'could not check the e-mail notification subscriber'));
  const handoff = startHandoff({ config, store, events: storeEventReader(store), log, onNotificationQueued: () => mail.kickReplies() });
  stops.push(() => handoff.close());
  // Events committed here (registrations, refusals, production status reports) are handed off at once rather than at
  // the next poll; the kick also rings the other instances' bell on PostgreSQL.
  eventSignal.listen(() => handoff.kick());

  // Whatever was received and not processed before the last stop (or crash) is processed now, in the
  // background so the channels take new work meanwhile.
  const recovery = intake.recover().then(
    (n) => n > 0 && log.info({ recovered: n }, 'processed submissions left from the previous run'),
    (err: unknown) => log.error({ err }, 'recovery failed'),
  );
  // Scheduled backups (SQLite only: config.ts refuses INTAKE_BACKUP_DIR with PostgreSQL). Stopped first at stop.
  if (config.backupDir && !config.databaseUrl) {
    const backups = await startBackupSchedule({
      source: path.join(config.dataDir, SQLITE_FILE_NAME), keySource: path.join(config.dataDir, SECRET_KEY_FILE),
      dir: config.backupDir, everyMs: config.backupEveryMs, keep: config.backupKeep, log,
    });
    stops.push(() => backups.close());
  }
  readiness.started();

  return {
    store, intake, ports, metrics, readiness, uploadBudget,
    async reloadTls() {
      if (!config.tlsCertFile || !config.tlsKeyFile) return log.info('SIGHUP: no TLS certificate to reload');
      for (const reload of reloaders) await reload();
      log.info('TLS certificate reloaded (HTTPS, FTP AUTH TLS, SMTP STARTTLS, where on)');
    },
    demo: demo && { customer: demo, baseUrl: ports.http ? baseUrl(config, ports.http) : undefined },
    async stop() {
      // Not ready before any port closes: a balancer probing /readyz drains this instance while it still answers.
      readiness.stopping();
      for (const stop of stops.reverse()) await stop();
      await recovery;
      await intake.stop();
      // The database may be gone: the instance is then found gone by the next instance's sweep, as after a crash.
      await store.stopInstance(holder).catch((err: unknown) => log.warn({ err }, 'could not unregister the instance'));
      await store.close();
      log.info('stopped');
    },
  };
}
