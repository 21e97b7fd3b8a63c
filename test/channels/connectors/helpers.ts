/**
 * A real HTTP server on port 0 with the REST and connector routes, wired as src/main.ts wires them (store → intake →
 * HTTP server → routes), on a throw-away SQLite store; plus customers, sites and connectors provisioned through the
 * same code the CLI uses, and a small undici client.
 */
import { rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { createAuthenticator } from '../../../src/auth/authenticator.ts';
import { registerConnectorRoutes } from '../../../src/channels/connectors/routes.ts';
import { createHttpServer } from '../../../src/http/server.ts';
import { registerDocs } from '../../../src/channels/rest/docs.ts';
import { registerRestRoutes } from '../../../src/channels/rest/routes.ts';
import { DEFAULT_UNITS } from '../../../src/catalog/units.ts';
import { loadConfig } from '../../../src/config.ts';
import { addConnector, setMapping } from '../../../src/connectors/provision.ts';
import { addSite } from '../../../src/connectors/sites.ts';
import { provisionCustomer } from '../../../src/customers/provision.ts';
import { createIntake, type Intake } from '../../../src/intake/intake.ts';
import { createLogger } from '../../../src/log.ts';
import { openStore } from '../../../src/store/open.ts';
import type { Store } from '../../../src/domain/store/store.ts';
import { tempDir, TEST_ARTICLES } from '../../helpers/service.ts';

export interface ConnectorService {
  url: string;
  store: Store;
  intake: Intake;
  /** Customer code → API key. */
  apiKeys: Map<string, string>;
  customer(code: string): Promise<string>;
  site(code: string, name?: string): Promise<void>;
  connector(input: {
    customer?: string; customers?: string; sites: string; format: string; allowIps?: string; mapping?: string; name?: string; productKey?: string;
  }): Promise<{ id: string; key: string }>;
  close(): Promise<void>;
}

export async function startConnectorService(env: Record<string, string> = {}): Promise<ConnectorService> {
  const dataDir = tempDir('intake-conn-');
  const config = loadConfig({ INTAKE_DATA_DIR: dataDir, INTAKE_LOG_LEVEL: 'silent', INTAKE_MAIL_DOMAIN: 'ordini.test', ...env });
  const log = createLogger(config.logLevel);
  const store = await openStore(config);
  await store.upsertUnits(DEFAULT_UNITS);
  await store.upsertArticles([...TEST_ARTICLES, { codice_articolo: 'BRO-A5', descrizione: 'Brochure A5', unita_misura: 'PZ' }]);
  const intake = createIntake({ store, timeZone: config.timeZone, log });
  const app = createHttpServer({ store, log, maxBodyBytes: config.maxBodyBytes });
  registerRestRoutes(app, { intake, store, auth: createAuthenticator(store), timeZone: 'Europe/Rome' });
  registerConnectorRoutes(app, { intake, store });
  await registerDocs(app, 'http://127.0.0.1');
  await app.listen({ host: '127.0.0.1', port: 0 });
  const apiKeys = new Map<string, string>();
  return {
    url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    store, intake, apiKeys,
    async customer(code) {
      const c = await provisionCustomer(store, { code, name: `Cliente ${code}` }, config.mailDomain);
      apiKeys.set(code, c.apiKey);
      return c.apiKey;
    },
    async site(code, name = `Sito ${code}`) {
      await addSite(store, { code, name });
    },
    async connector(input) {
      const { mapping, ...rest } = input;
      const { connector, key } = await addConnector(store, { name: `${input.format} ${input.customer ?? input.customers}`, ...rest });
      if (mapping !== undefined) await setMapping(store, connector.id, mapping);
      return { id: connector.id, key };
    },
    async close() {
      await app.close();
      await intake.stop();
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface Answer {
  status: number;
  contentType: string;
  text: string;
  json: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
}

export async function call(url: string, opts: { method?: 'GET' | 'POST'; key?: string; body?: string | Buffer; contentType?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key !== undefined) headers['service-x-key'] = opts.key;
  if (opts.contentType !== undefined) headers['content-type'] = opts.contentType;
  const res = await request(url, { method: opts.method ?? (opts.body === undefined ? 'GET' : 'POST'), headers, body: opts.body });
  const text = await res.body.text();
  const contentType = String(res.headers['content-type'] ?? '');
  let json: Record<string, unknown> = {};
  if (contentType.includes('json')) json = JSON.parse(text) as Record<string, unknown>;
  return { status: res.statusCode, contentType, text, json, headers: res.headers };
}

/** The text of an XML attribute (first occurrence), enough to read a JMF/XJMF response in a test. */
export function xmlAttr(xml: string, attr: string): string | undefined {
  return new RegExp(`\\b${attr}="([^"]*)"`).exec(xml)?.[1];
}
