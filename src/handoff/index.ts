/**
 * The way out of the service for registered orders: webhooks and hot-folder exports, started by main.ts next to the
 * channels and stopped with them. Everything else of the hand-off (the event feed, the outbox itself) lives with
 * the intake and the store; this part only reads the event stream (EventReader) and the store.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import type { HandoffPort } from '../domain/store/ports.ts';
import { startDispatcher, type Dispatcher, type HandoffOptions } from './dispatcher.ts';
import type { EventReader } from '../domain/order-events.ts';

export interface HandoffDeps {
  config: Config;
  store: HandoffPort;
  events: EventReader;
  log: Logger;
  /** Test hook: e.g. another resolver. */
  options?: Partial<HandoffOptions>;
  /** A status notification was queued in the reply outbox (the mail channel's sender may send it at once). */
  onNotificationQueued?: () => void;
}

/** The service's version, named in the XJDF tickets it writes (src/ and dist/ are both two levels below the root). */
function serviceVersion(): string {
  try {
    return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

export function startHandoff(deps: HandoffDeps): Dispatcher {
  const { config } = deps;
  const log = deps.log.child({ part: 'handoff' });
  return startDispatcher({
    store: deps.store, events: deps.events, log, secretKey: config.secretKey, agentVersion: serviceVersion(),
    // Names this instance in the fan-out lease and the delivery claims.
    holder: `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`,
    options: {
      timeoutMs: config.webhookTimeoutMs, leaseMs: config.handoffLeaseMs, pollMs: config.handoffPollMs, retry: config.handoffRetry,
      retentionMs: config.eventRetentionDays * 24 * 60 * 60_000,
      notify: { mailDomain: config.mailDomain, timeZone: config.timeZone, onQueued: deps.onNotificationQueued },
      ...deps.options,
    },
  });
}
