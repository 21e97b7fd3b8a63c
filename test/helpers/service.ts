/**
 * Starts the real service in-process on ephemeral ports with a throw-away data directory, and provisions test
 * customers and articles through the same code the CLI uses.
 */
import { sharedDnsAddress } from './dns-server.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger } from '../../src/log.ts';
import { startService, type Service } from '../../src/main.ts';
import { provisionCustomer } from '../../src/customers/provision.ts';
import { withPostgresKey } from './secret-key.ts';

export { waitFor } from './wait.ts';

export interface TestCustomer {
  code: string;
  apiKey: string;
  mailbox: string;
  ftpUser: string;
  ftpPassword: string;
}

export interface TestService {
  service: Service;
  config: Config;
  url: string;
  dataDir: string;
  /** Provision a customer (C001, C002, …) with fresh credentials. */
  customer(code: string): Promise<TestCustomer>;
  close(): Promise<void>;
}

export const TEST_ARTICLES = [
  { codice_articolo: 'BV-STD', descrizione: 'Biglietti da visita', unita_misura: 'PZ' },
  { codice_articolo: 'VOL-A4', descrizione: 'Volantini A4', unita_misura: 'PZ' },
  { codice_articolo: 'CAR-A4-80', descrizione: 'Carta A4 80g', unita_misura: 'RS' },
];

export function tempDir(prefix = 'intake-test-'): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

export async function startTestService(env: Record<string, string> = {}, dataDir = tempDir()): Promise<TestService> {
  const config = loadConfig(withPostgresKey({
    INTAKE_DATA_DIR: dataDir, INTAKE_HOST: '127.0.0.1', INTAKE_HTTP_PORT: '0', INTAKE_SFTP_PORT: 'off',
    INTAKE_FTP_PORT: 'off', INTAKE_SMTP_PORT: 'off', INTAKE_LOG_LEVEL: 'silent', INTAKE_MAIL_DOMAIN: 'ordini.test',
    // Senders of test mail are checked against an empty fixture DNS server, never against real DNS.
    INTAKE_DNS_SERVERS: await sharedDnsAddress(),
    // The runner's smaller PostgreSQL pool (scripts/run-tests.mjs), as the serve children get it through the environment.
    ...(process.env.INTAKE_DATABASE_POOL ? { INTAKE_DATABASE_POOL: process.env.INTAKE_DATABASE_POOL } : {}),
    ...env,
  }));
  const service = await startService(config, createLogger(config.logLevel));
  await service.store.upsertArticles(TEST_ARTICLES);
  return {
    service, config, dataDir,
    url: `${config.httpTls ? 'https' : 'http'}://127.0.0.1:${service.ports.http}`,
    async customer(code) {
      const existing = await service.store.getCustomerByCode(code);
      if (existing) throw new Error(`customer ${code} already provisioned in this test`);
      const c = await provisionCustomer(service.store, { code, name: `Cliente ${code}` }, config.mailDomain);
      return { code, apiKey: c.apiKey, mailbox: c.mailbox, ftpUser: c.ftpUser, ftpPassword: c.ftpPassword };
    },
    async close() {
      await service.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** One turn of the event loop: lets the callbacks already queued (promises settled, setImmediate) run first. */
export function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}

export function order(code: string, ref: string, over: Record<string, unknown> = {}) {
  return {
    codice_cliente: code, riferimento_ordine: ref, data_ordine: '2026-11-20', data_consegna: '2026-12-01',
    righe: [{ codice_articolo: 'BV-STD', quantita: 500, unita_misura: 'PZ' }, { codice_articolo: 'VOL-A4', quantita: 1000, unita_misura: 'PZ' }],
    ...over,
  };
}
