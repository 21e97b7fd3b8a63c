/**
 * Adding webhooks and export folders: the checks an operator's input goes through before it is stored, shared by the
 * CLI and the tests. A webhook's signing secret is made here and returned once; only its sealed form is stored.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { uuidv7 } from '../domain/uuid7.ts';
import { IntakeError } from '../domain/errors.ts';
import { ORDER_EVENT_TYPES, type OrderEventType } from '../domain/order-events.ts';
import { newSigningSecret, sealSigningSecret } from './secret.ts';
import { checkWebhookUrl } from './target.ts';
import { CALLBACK_EVENTS } from './printtalk-callback.ts';
import type { ExportFormat, Subscriber } from '../domain/store/handoff.ts';
import type { HandoffPort } from '../domain/store/ports.ts';

export const EXPORT_FORMATS: readonly ExportFormat[] = ['json', 'xml', 'xjdf'];

export function parseEvents(list: string | undefined): OrderEventType[] {
  if (list === undefined) return [...ORDER_EVENT_TYPES];
  const names = [...new Set(list.split(',').map((s) => s.trim()).filter(Boolean))];
  const unknown = names.filter((n) => !(ORDER_EVENT_TYPES as readonly string[]).includes(n));
  if (names.length === 0 || unknown.length > 0) {
    throw new IntakeError('VALIDATION', `unknown event type ${unknown.join(', ') || '(none given)'}: use ${ORDER_EVENT_TYPES.join(', ')}`);
  }
  return names as OrderEventType[];
}

export interface IssuedWebhook {
  webhook: Subscriber;
  /** whsec_…: shown once. */
  secret: string;
}

export async function addWebhook(store: HandoffPort, secretKey: string | undefined,
  input: { url: string; events?: string; allowPrivate?: boolean }): Promise<IssuedWebhook> {
  const url = checkWebhookUrl(input.url, input.allowPrivate === true);
  const events = parseEvents(input.events);
  const id = uuidv7();
  const secret = newSigningSecret();
  const webhook = await store.addSubscriber({
    id, kind: 'webhook', url: url.href, secretEnc: sealSigningSecret(secretKey, secret, id), allowPrivate: input.allowPrivate === true, events,
  });
  return { webhook, secret };
}

/** Exports write the registered orders, their new versions and their cancellations: the files are what production works from. */
const EXPORT_EVENTS: OrderEventType[] = ['ordine.registrato', 'ordine.modificato', 'ordine.annullato'];

export async function addExport(store: HandoffPort, input: { dir: string; format: string }): Promise<Subscriber> {
  if (!(EXPORT_FORMATS as readonly string[]).includes(input.format)) {
    throw new IntakeError('VALIDATION', `unknown export format "${input.format}": use ${EXPORT_FORMATS.join(', ')}`);
  }
  const dir = path.resolve(input.dir);
  const st = await stat(dir).catch(() => undefined);
  if (!st?.isDirectory()) throw new IntakeError('VALIDATION', `${dir} is not an existing folder`);
  return store.addSubscriber({ id: uuidv7(), kind: 'export', dir, format: input.format as ExportFormat, events: EXPORT_EVENTS });
}

/** A subscriber of that kind, or NOT_FOUND. */
export async function requireSubscriber(store: HandoffPort, id: string, kind: Subscriber['kind']): Promise<Subscriber> {
  const s = await store.getSubscriber(id);
  if (!s || s.kind !== kind) throw new IntakeError('NOT_FOUND', `no ${kind === 'webhook' ? 'webhook' : 'export'} ${id}`);
  return s;
}

/** The callback of a connector (src/handoff/printtalk-callback.ts), if it has one. */
export async function connectorCallback(store: Pick<HandoffPort, 'listSubscribers'>, connectorId: string): Promise<Subscriber | undefined> {
  return (await store.listSubscribers({ kind: 'webhook' })).find((s) => s.connectorId === connectorId);
}

/**
 * Give a connector its callback URL, checked like a webhook's, replacing the one it had (with its deliveries still
 * queued: the old URL is gone). A new signing secret is made and returned once. `url` undefined: remove the callback.
 */
export async function setConnectorCallback(store: HandoffPort, secretKey: string | undefined,
  input: { connectorId: string; url?: string; allowPrivate?: boolean }): Promise<IssuedWebhook | undefined> {
  const connector = await store.getConnector(input.connectorId);
  if (!connector) throw new IntakeError('NOT_FOUND', `no connector ${input.connectorId}`);
  // The callback answers PrintTalk Cancellations, which only xjdf connectors take.
  if (input.url !== undefined && connector.format !== 'xjdf') {
    throw new IntakeError('VALIDATION', `connector ${connector.id} has format ${connector.format}: a callback is for PrintTalk, taken on xjdf connectors`);
  }
  const url = input.url === undefined ? undefined : checkWebhookUrl(input.url, input.allowPrivate === true);
  const old = await connectorCallback(store, connector.id);
  if (old) await store.removeSubscriber(old.id);
  if (!url) return undefined;
  const id = uuidv7();
  const secret = newSigningSecret();
  const webhook = await store.addSubscriber({
    id, kind: 'webhook', url: url.href, secretEnc: sealSigningSecret(secretKey, secret, id), allowPrivate: input.allowPrivate === true,
    connectorId: connector.id, events: [...CALLBACK_EVENTS],
  });
  return { webhook, secret };
}
